/**
 * The one error handler (docs/api.md, Refusals): every failure becomes an
 * RFC 9457 `application/problem+json` body `{type, title, status, detail,
 * code, problems?}` with a code from src/errors.ts. Internal errors are logged
 * with their stack and answered with a generic detail — never their message;
 * an expected 5xx refusal is logged in one line (./error-log.ts).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DeskError, ERROR_CODES, type ErrorCode, isDeskError } from '../errors.js';
import type { ProblemDetails } from '../schema/errors.js';
import { drainBody } from './drain-body.js';
import { logFailure } from './error-log.js';

export const PROBLEM_JSON = 'application/problem+json';

/**
 * A body as this service builds it: the answered shape (src/schema/errors.ts),
 * with a code from src/errors.ts, so the log line can name it.
 */
export type ProblemAnswer = ProblemDetails & { code: ErrorCode };

/** A stable URI per code; docs/api.md has an anchor for each. */
export function problemType(code: ErrorCode): string {
  return `urn:desk-library:error:${code}`;
}

export function problemDetails(code: ErrorCode, detail: string, extra: Record<string, unknown> = {}): ProblemAnswer {
  const { status, title } = ERROR_CODES[code];
  return { ...extra, type: problemType(code), title, status, detail, code };
}

export function sendProblem(reply: FastifyReply, body: ProblemAnswer): FastifyReply {
  return reply.code(body.status).type(PROBLEM_JSON).send(body);
}

/** fastify's own error codes that are the client's fault, and what they become. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'bad_request',
  FST_ERR_CTP_INVALID_JSON_BODY: 'bad_request',
};

interface ValidationItem {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

export function toProblem(err: unknown): ProblemAnswer {
  if (isDeskError(err)) return problemDetails(err.code, err.message, err.extra);
  const fe = err as Partial<FastifyError> & { validation?: ValidationItem[]; validationContext?: string };
  if (Array.isArray(fe.validation)) return validationProblem(fe.validation, fe.validationContext ?? 'request');
  const mapped = fe.code ? FASTIFY_CODES[fe.code] : undefined;
  if (mapped) return problemDetails(mapped, fastifyDetail(mapped, fe));
  // Invalid JSON reaches us as a SyntaxError with statusCode 400 on some paths.
  if (err instanceof SyntaxError && fe.statusCode === 400) return problemDetails('bad_request', 'the body is not valid JSON');
  if (fe.statusCode === 408) return problemDetails('request_timeout', 'the request took too long');
  if (clientAborted(fe)) return problemDetails('bad_request', 'the client closed the connection before its body ended');
  // Any other fastify error that blames the request (a bad URL, a bad header):
  // still the client's, never a 500.
  if (fe.code?.startsWith('FST_') && fe.statusCode !== undefined && fe.statusCode >= 400 && fe.statusCode < 500) {
    return problemDetails('bad_request', 'the request is not well formed');
  }
  return problemDetails('internal', 'the service failed to answer; the error is in its log');
}

/**
 * The client went away while sending its body: Node's request stream fails
 * with `aborted` (ECONNRESET) and fastify's body reader passes that on. It is
 * the client's doing, like a timeout, not the service's.
 */
function clientAborted(fe: Partial<FastifyError>): boolean {
  return fe.code === 'ECONNRESET' || fe.message === 'aborted';
}

/** Fixed details: fastify's messages are fine but we keep every detail ours. */
function fastifyDetail(code: ErrorCode, fe: Partial<FastifyError>): string {
  switch (code) {
    case 'payload_too_large':
      return 'the request body is over the 1 MiB limit';
    case 'unsupported_media_type':
      return 'send the body as application/json';
    default:
      return fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
        ? 'the body is empty but its content type is application/json'
        : 'the body is not valid JSON';
  }
}

/**
 * A schema failure names the field: `body/source must be string`,
 * `body has unknown key 'extra'`. A name that fails its pattern is
 * `invalid_name`, whether it came in the URL or the body.
 */
function validationProblem(items: ValidationItem[], context: string): ProblemAnswer {
  const first = items[0];
  if (!first) return problemDetails('bad_request', `${context} is not valid`);
  const where = `${context}${first.instancePath}`;
  if (first.keyword === 'pattern' && /\/name$/.test(first.instancePath)) {
    return problemDetails('invalid_name', `${where} does not match the name pattern ${String(first.params.pattern)}`);
  }
  if (first.keyword === 'additionalProperties') {
    return problemDetails('bad_request', `${where} has unknown key '${String(first.params.additionalProperty)}'`);
  }
  if (first.keyword === 'required') {
    return problemDetails('bad_request', `${where} lacks required key '${String(first.params.missingProperty)}'`);
  }
  return problemDetails('bad_request', `${where} ${first.message ?? 'is not valid'}`);
}

/** The code each refused request was answered with, for its one log line (app.ts). */
const answeredCodes = new WeakMap<FastifyRequest, ErrorCode>();

export function errorCodeOf(req: FastifyRequest): ErrorCode | undefined {
  return answeredCodes.get(req);
}

/** Installs the error and not-found handlers on the root instance. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const body = toProblem(err);
    answeredCodes.set(req, body.code);
    // A refusal is the client's business and shows in the request's own line;
    // a 5xx adds the line its level says (./error-log.ts): a fault's stack, or an expected refusal's one line.
    if (body.status >= 500) logFailure(req.log, body, err);
    // no answer reaches a client that went away, so no request line follows: this is its one line
    else if (clientAborted(err as Partial<FastifyError>)) {
      req.log.info({ method: req.method, url: req.url, who: req.ip }, 'client closed the connection mid-body');
    }
    // a refusal before the body was read: read it first, so the client sees the answer (drain-body.ts)
    await drainBody(req.raw);
    return sendProblem(reply, body);
  });
  app.setNotFoundHandler((req: FastifyRequest, reply: FastifyReply) => {
    answeredCodes.set(req, 'not_found');
    return sendProblem(reply, problemDetails('not_found', `no route ${req.method} ${req.url.split('?')[0]}`));
  });
}

/** For route handlers: the 404 of a name the library does not hold. */
export function notFound(kind: 'template' | 'role', name: string): DeskError {
  return new DeskError('not_found', `no ${kind} named '${name}'`);
}
