/**
 * The request guards (docs/security.md). The service
 * runs on the operator's machine and its client is a browser page, so the
 * first attacker is another page in the same browser: it can make the
 * browser send requests here (CSRF), or point its own domain at 127.0.0.1
 * and read the answers (DNS rebinding). Every request passes, in order:
 *
 *   1. Host is one of the service's own names        else 421 forbidden_host
 *   2. a state change comes from the service's page  else 403 forbidden_origin
 *   3. /api names a user, when the desk knows any      else 401 unauthorized
 *      (too many failures from one address               → 429 too_many_requests)
 *      whose role the route allows (auth-rules.ts)       else 403 forbidden
 *   4. a body is application/json                    else 415 unsupported_media_type
 *
 * Wrapped with fastify-plugin so the hooks and the body parser apply to the
 * whole app; register it before any route.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { DeskError } from '../errors.js';
import { type AuthProxyOptions, authenticator } from './auth.js';
import type { AuthRateOptions } from './auth-rate.js';
import { type Authority, isOwnHost, isOwnOrigin, parseAllowedHosts } from './guard-host.js';
import { hasBody, isJsonContentType } from './guard-media.js';
import { UserDirectory } from './users-directory.js';

export { checkListenAddress, isLoopbackHost } from './guard-host.js';
export { serverOptions, stoppingGuard } from './guard-server.js';

export interface GuardOptions {
  /**
   * The port the service listens on: Host and Origin must carry it. A
   * function is asked on every request. `0` (listen on any free port, as
   * tests do) reads the port the server is bound to; before `listen` — only
   * `app.inject` can send a request then — it reads as 80, the port of
   * inject's default `Host: localhost:80`.
   */
  port: number | (() => number);
  /**
   * The listen address (HOST). A specific non-loopback address or name is
   * how other machines reach the service, so it is allowed as a Host name;
   * wildcards (`0.0.0.0`, `::`) name nothing. Default none.
   */
  host?: string;
  /** extra allowed host names, e.g. from DESK_ALLOWED_HOSTS: `name` or `name:port`. Default none. */
  allowedHosts?: string[];
  /** when set every /api request needs Authorization: Bearer; its user is `desk`, an editor. Default none (loopback only). */
  token?: string | null;
  /** the users (DESK_USERS_FILE, with DESK_TOKEN's `desk` in it); given, `token` is not read. Default: `token`'s alone */
  users?: UserDirectory;
  /** a trusted auth proxy's header (docs/security.md); default none */
  authProxy?: AuthProxyOptions | null;
  /** the failed-authentication limit per address (auth-rate.ts); defaults there */
  authRate?: AuthRateOptions;
}

/** Methods a browser page may send cross-origin without changing anything. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Fetch metadata values that still mean "this service's own page" (or typed in the bar). */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

const guard: FastifyPluginAsync<GuardOptions> = async (app, options) => {
  const extra: Authority[] = parseAllowedHosts([...listenName(options.host), ...(options.allowedHosts ?? [])]);
  const port = portReader(app, options.port);
  const authenticate = authenticator({
    users: options.users ?? UserDirectory.open({ token: options.token ?? null }),
    proxy: options.authProxy ?? null,
    ...(options.authRate ? { rate: options.authRate } : {}),
  });
  app.decorateRequest('deskUser', null);

  // Only JSON is parsed. Removing fastify's text/plain parser means a body
  // a hostile page can send without a CORS preflight never reaches a route,
  // even if the hook below were bypassed.
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    // An empty JSON body is no body: a DELETE sent with the page's usual
    // headers must not fail; routes that need a body say so in their schema.
    const text = body.toString();
    if (text === '') done(null, undefined);
    else parseJson(req, text, done);
  });

  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const p = port();
    if (!isOwnHost(req.headers.host, p, extra)) {
      throw new DeskError('forbidden_host', 'the Host header does not name this service; see DESK_ALLOWED_HOSTS');
    }
    if (!SAFE_METHODS.has(req.method)) checkOrigin(req, p, extra);
    if (isApi(req)) authenticate(req, reply, req.routeOptions.config?.queryToken === true);
    // GET and HEAD bodies are never parsed by fastify; every other method's are.
    if (req.method !== 'GET' && req.method !== 'HEAD' && hasBody(req.headers)) {
      if (!isJsonContentType(req.headers['content-type'])) {
        throw new DeskError('unsupported_media_type', 'send the body as application/json');
      }
    }
  });
};

function checkOrigin(req: FastifyRequest, port: number, extra: readonly Authority[]): void {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && !OWN_FETCH_SITES.has(site)) {
    throw new DeskError('forbidden_origin', 'a state change must come from the service’s own page');
  }
  // No Origin at all is a non-browser client (curl, the desk's own process):
  // browsers send Origin on every non-GET request since 2020.
  const origin = req.headers.origin;
  if (origin !== undefined && !isOwnOrigin(origin, port, extra)) {
    throw new DeskError('forbidden_origin', 'a state change must come from the service’s own page');
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route also takes the token as `?token=` (the events stream:
     * EventSource cannot send headers). docs/security.md says what it costs.
     * Default false.
     */
    queryToken?: boolean;
  }
}

/**
 * Is this an /api request? Asks the router first: `/%61pi/desk/templates`
 * routes to `/api/desk/templates` but its raw URL does not start with /api.
 * The decoded path covers what matched no route, so 404s under /api need
 * the token too and do not reveal which routes exist.
 */
function isApi(req: FastifyRequest): boolean {
  if (req.routeOptions.url?.startsWith('/api')) return true;
  const raw = req.url.split('?')[0] ?? '';
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return true; // undecodable: assume the worst
  }
  path = path.replace(/\/{2,}/g, '/').toLowerCase();
  return path === '/api' || path.startsWith('/api/');
}

function portReader(app: FastifyInstance, port: number | (() => number)): () => number {
  if (typeof port === 'function') return port;
  if (port !== 0) return () => port;
  return () => {
    const a = app.server.address() as AddressInfo | string | null;
    return typeof a === 'object' && a !== null ? a.port : 80;
  };
}

/** The listen address as an allowed name, unless it is a wildcard. */
function listenName(host: string | undefined): string[] {
  const h = host?.trim() ?? '';
  return h === '' || h === '0.0.0.0' || h === '::' || h === '[::]' ? [] : [h];
}

/** The URL as logs show it: a `token` query parameter (the events stream's) is never written down. */
export function loggedUrl(url: string): string {
  return url.includes('token=') ? url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]') : url;
}

export const guardPlugin = fp(guard, { fastify: '5.x', name: 'desk-guard' });
