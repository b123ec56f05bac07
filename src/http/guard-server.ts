/**
 * The fastify factory options the guards depend on. app.ts spreads
 * `serverOptions` into `Fastify({...})`; these cannot be set from a plugin.
 * See docs/security.md.
 */
import type { Socket } from 'node:net';
import type { Server } from 'node:http';
import type { FastifyError, FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { problemDetails, sendProblem } from './errors.js';

/** The body cap (docs/security.md, Limits); past it fastify answers 413. */
export const BODY_LIMIT = 1_048_576;
/** How long a client may take to send one whole request. */
export const REQUEST_TIMEOUT = 30_000;
/** How long a client may take to send a request's headers (node's default is 60 s, longer than the whole request's). */
export const HEADERS_TIMEOUT = 10_000;

/**
 * Errors Node meets before there is a request object (a slow client, a
 * malformed request line, oversized headers) bypass fastify's error handler.
 * Answer them as problem+json too, so every answer the service gives has a
 * code. Mirrors fastify's default handler otherwise.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const body = JSON.stringify(
    timeout
      ? problemDetails('request_timeout', 'the request was not received in time')
      : problemDetails('bad_request', 'the request is not valid HTTP'),
  );
  const status = timeout ? '408 Request Timeout' : '400 Bad Request';
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/**
 * fastify refuses some URLs before routing, so before any hook or the error
 * handler: `/api%` (undecodable) and a path parameter over maxParamLength
 * (100). Answer them as problem+json like every other refusal. The only
 * path parameters are names (at most 64 characters), so an over-long one is
 * an invalid name.
 */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendProblem(reply, problemDetails('invalid_name', 'a name in the path is too long'));
  } else if (err.code === 'FST_ERR_BAD_URL') {
    sendProblem(reply, problemDetails('bad_request', 'the path is not a valid URL'));
  } else {
    reply.log.error({ err }, 'request failed before routing');
    sendProblem(reply, problemDetails('internal', 'the service failed to answer; the error is in its log'));
  }
}

export const serverOptions = {
  bodyLimit: BODY_LIMIT,
  // A body with `__proto__` or `constructor.prototype` is refused (400), not
  // stripped: nothing a client means to save has those keys, and a silent
  // strip would save something other than what was sent.
  onProtoPoisoning: 'error',
  onConstructorPoisoning: 'error',
  /**
   * The whole request — headers and body — must arrive within 30 s, else
   * 408 `request_timeout` and the socket is closed. A 1 MiB body takes well
   * under a second on loopback; this only ends slow-loris clients.
   */
  requestTimeout: REQUEST_TIMEOUT,
  http: {
    // Given to http.createServer too: on Node 20 a requestTimeout set after
    // construction (which is what fastify does) bounds the headers but not
    // the body — a client that sends headers and then trickles a body is
    // never timed out. test/guard-listen.test.ts shows both phases end.
    requestTimeout: REQUEST_TIMEOUT,
    // A half-sent request holds a socket and a descriptor: the headers of a
    // real one arrive in one packet, so 10 s ends a client that sends them a
    // byte at a time three times sooner than the whole request's 30 s would.
    headersTimeout: HEADERS_TIMEOUT,
    // Node enforces it on a sweep, every 30 s by default, so a 30 s limit
    // could let a slow client hold a socket for 60 s. Sweep often.
    connectionsCheckingInterval: 2_000,
  },
  /**
   * A socket with no traffic for 60 s is closed. Longer than requestTimeout
   * so a slow but live upload gets its 408, not a reset.
   */
  connectionTimeout: 60_000,
  // Logs name the client address as "who" (docs/operations.md, Logs); X-Forwarded-For from any
  // caller must not be able to forge it.
  trustProxy: false,
  // While stopping, fastify would answer a request on a kept-alive socket with its own plain
  // 503 body; stoppingGuard (below) answers it as every other refusal, with a code.
  return503OnClosing: false,
  clientErrorHandler,
  frameworkErrors,
} as const satisfies FastifyHttpOptions<Server>;

/**
 * From the start of close() (preClose) until the server is gone, a request
 * that still arrives on a kept-alive connection is answered `503
 * shutting_down` with `Connection: close` and `Retry-After: 1`, before any
 * other work: the problem+json every refusal has, where fastify's own would
 * be a bare `{"error":"Service Unavailable"}`.
 */
export function stoppingGuard(app: FastifyInstance): void {
  let stopping = false;
  app.addHook('preClose', async () => {
    stopping = true;
  });
  app.addHook('onRequest', async (_req, reply) => {
    if (!stopping) return;
    reply.header('connection', 'close').header('retry-after', '1');
    return sendProblem(reply, problemDetails('shutting_down', 'the service is stopping; send the request again once it is back'));
  });
}
