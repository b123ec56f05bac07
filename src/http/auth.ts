/**
 * Who is asking (docs/security.md, Users and roles): step 3 of the guard.
 * A bearer token names a user (the users file, or DESK_TOKEN's `desk`); a
 * trusted auth proxy may name one by a header instead; then the route's
 * role (auth-rules.ts) is checked against the user's. Nobody known to the
 * desk at all (no file, no token, no proxy) is the loopback operator of
 * old: every request passes and `who` stays the client address.
 */
import { BlockList, isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DeskError } from '../errors.js';
import { createAuthRate, type AuthRateOptions } from './auth-rate.js';
import { roleFor } from './auth-rules.js';
import type { UserDirectory } from './users-directory.js';
import { type DeskUser, hasRole, tokenDigest, type UserRole } from './users.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** the person asking, once the guard knows; null when the desk knows nobody (docs/security.md) */
    deskUser: DeskUser | null;
  }
}

/** `who` of a change (history, events, decisions): the user's name, or the client address when the desk knows nobody. */
export const whoOf = (req: FastifyRequest): string => req.deskUser?.name ?? req.ip;

/** A trusted auth proxy (DESK_AUTH_PROXY_HEADER, DESK_TRUSTED_PROXIES, DESK_AUTH_PROXY_ROLE), as Grafana's. */
export interface AuthProxyOptions {
  /** the header naming the user, e.g. `X-Forwarded-Email` */
  header: string;
  /** addresses or CIDRs the header is honoured from */
  trusted: string[];
  /** the role of a user the users file does not list; default viewer */
  role?: UserRole;
}

export interface AuthOptions {
  users: UserDirectory;
  proxy?: AuthProxyOptions | null;
  rate?: AuthRateOptions;
}

const BEARER = /^Bearer +([^\s]+) *$/i;
/** what a proxy's header may name: one line, no angle brackets (it becomes a commit author), bounded */
const PROXY_NAME = /^[^\s<>"\\\x00-\x1f\x7f]{1,200}$/;

/** Parses DESK_TRUSTED_PROXIES' entries into a BlockList; returns the entries that are neither an address nor a CIDR. */
export function trustedList(entries: readonly string[]): { list: BlockList; bad: string[] } {
  const list = new BlockList();
  const bad: string[] = [];
  for (const raw of entries) {
    const [addr = '', bits, more] = raw.trim().split('/');
    const family = isIP(addr);
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : /^\d{1,3}$/.test(bits) ? Number(bits) : -1;
    if (family === 0 || more !== undefined || prefix < 0 || prefix > (family === 6 ? 128 : 32)) {
      bad.push(raw);
      continue;
    }
    list.addSubnet(addr, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  return { list, bad };
}

export type Authenticate = (req: FastifyRequest, reply: FastifyReply, queryToken: boolean) => void;

export function authenticator(o: AuthOptions): Authenticate {
  const rate = createAuthRate(o.rate);
  const proxy = o.proxy ? { ...o.proxy, header: o.proxy.header.toLowerCase(), list: trustedList(o.proxy.trusted).list } : null;
  let toldUntrusted = false;

  const fromProxy = (req: FastifyRequest): DeskUser | undefined => {
    if (!proxy) return undefined;
    const value = req.headers[proxy.header];
    if (value === undefined) return undefined;
    const peer = req.socket.remoteAddress ?? '';
    const family = isIP(peer);
    if (family === 0 || !proxy.list.check(peer, family === 6 ? 'ipv6' : 'ipv4')) {
      if (!toldUntrusted) {
        toldUntrusted = true;
        req.log.warn({ header: proxy.header, who: req.ip }, 'auth proxy header from an address not in DESK_TRUSTED_PROXIES; ignored (said once)');
      }
      return undefined;
    }
    const name = (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
    if (!PROXY_NAME.test(name)) return undefined;
    return o.users.byName(name) ?? { name, role: proxy.role ?? 'viewer', email: name.includes('@') ? name : null };
  };

  /**
   * The token presented: the bearer header's, else `?token=` where the route
   * takes one. null: an Authorization header of another scheme, or malformed —
   * a credential, but nobody's; undefined: no credential at all.
   */
  const presented = (req: FastifyRequest, queryToken: boolean): string | null | undefined => {
    const auth = req.headers.authorization;
    if (auth !== undefined) return BEARER.exec(auth)?.[1] ?? null;
    const q = queryToken ? (req.query as Record<string, unknown> | undefined)?.token : undefined;
    return typeof q === 'string' ? q : undefined;
  };

  return (req, reply, queryToken) => {
    req.deskUser = null;
    if (!o.users.active && !proxy) return;
    const token = presented(req, queryToken);
    // hashed once: the lookup and the rate's memory of tokens that worked both key on the digest
    const digest = typeof token === 'string' ? tokenDigest(token) : null;
    const wait = rate.blocked(req.ip);
    // a blocked address still lets through a token that has worked here, and what the trusted proxy vouches for
    // (neither is a guess); anything else is 429 whether it would match or not, so guessing there tells nothing
    const vouched = wait > 0 && token === undefined ? fromProxy(req) : undefined;
    if (wait > 0 && !vouched && !(digest !== null && rate.known(digest))) {
      reply.header('retry-after', String(wait));
      throw new DeskError('too_many_requests', `too many failed authentications from this address; try again in ${wait} s`);
    }
    const user = vouched ?? (digest !== null ? o.users.identifyDigest(digest) : token === null ? undefined : fromProxy(req));
    if (!user) {
      // a credential that did not match is a guess, and counts; no credential at all (a health probe, a page
      // before its sign-in) guesses nothing, so it never locks the address out for those who have one
      if (token !== undefined) rate.failed(req.ip);
      reply.header('www-authenticate', typeof token === 'string' && req.headers.authorization !== undefined ? 'Bearer realm="desk", error="invalid_token"' : 'Bearer realm="desk"');
      throw new DeskError('unauthorized', 'send Authorization: Bearer <token> (DESK_TOKEN, or a user’s from DESK_USERS_FILE)');
    }
    if (digest !== null) rate.succeeded(digest);
    req.deskUser = user;
    const needed = roleFor(req.method, req.routeOptions.url);
    if (!hasRole(user, needed)) {
      throw new DeskError('forbidden', `${user.name} is a ${user.role}; this needs the ${needed} role`, { needed_role: needed });
    }
  };
}
