/**
 * Completes the OpenAPI document @fastify/swagger builds from the route
 * schemas (docs/api.md, OpenAPI), as its `transformObject`: each operation
 * gets its operationId and `security` from ./operations.ts, its error
 * answers spelled out status by status as `application/problem+json` with
 * the one ProblemDetails schema (the routes declare `4xx`/`5xx` ranges, which
 * is what the serializer needs, not what a client can switch on), `ETag` on
 * the answers that send it, and its media type where it is not JSON.
 */
import { PROBLEM_JSON } from './errors.js';
import { EVERY_OPERATION, type ErrorStatus, type Operation, OPERATIONS } from './operations.js';

/** The parts of an OpenAPI 3.1 document this module reads or writes; the rest passes through. */
interface Media {
  schema?: unknown;
}
interface Response {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, Media>;
}
interface OperationObject {
  operationId?: string;
  description?: string;
  security?: Record<string, string[]>[];
  responses: Record<string, Response>;
  [key: string]: unknown;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas?: Record<string, unknown>; [key: string]: unknown };
  [key: string]: unknown;
}

export const PROBLEM_SCHEMA_REF = '#/components/schemas/ProblemDetails';
export const BEARER = 'bearerAuth';
export const QUERY_TOKEN = 'queryToken';

const REASONS: Record<ErrorStatus, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  421: 'Misdirected Request',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  507: 'Insufficient Storage',
};

const SUCCESS: Record<string, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content' };

/**
 * Every tag a route names, with what it groups: a generator makes one
 * client class or doc page per tag, and names it from here. A route with a
 * tag not listed fails test/openapi-document.test.ts.
 */
export const TAGS: readonly { name: string; description: string }[] = [
  { name: 'templates', description: 'The templates: list, read, save, delete, diff, rebase, and the card and launch preview of a source' },
  { name: 'settings', description: "Actions on a template's copy of a shipped one: reset it to the shipped bytes, or acknowledge the shipped change" },
  { name: 'roles', description: 'The roles: their role.md and kit, saved, reset and deleted' },
  { name: 'history', description: "The library's git history: each name's versions, a version's bytes, its diff and its restore" },
  { name: 'proposals', description: 'Templates a conductor proposes, kept for the operator to save or dismiss' },
  { name: 'launches', description: 'Launch drafts a conductor makes, kept for the operator to approve or dismiss; the desk starts nothing' },
  { name: 'sync', description: "The library against its team's remote: the status, a round now, and the decision on a diverged name" },
  { name: 'upgrade', description: 'Moving the copies behind the shipped templates onto today\'s shipped version' },
  { name: 'events', description: 'What changed in the library, as Server-Sent Events' },
  { name: 'mcp', description: 'The desk as a Model Context Protocol server, for a conductor' },
  { name: 'meta', description: 'The service itself: liveness, counts, the caller, the catalogue and the template JSON Schema' },
];

/**
 * Who to ask about the API. A name only: the package has no `homepage` to
 * give as its URL (docs/api.md, OpenAPI).
 */
export const CONTACT = { name: 'desk-library maintainers (README.md)' };

/** The operation's row in ./operations.ts, by its path under `prefix`. */
export function operationOf(prefix: string, path: string, method: string): Operation | undefined {
  if (!path.startsWith(prefix)) return undefined;
  return OPERATIONS[`${method.toUpperCase()} ${path.slice(prefix.length)}`];
}

/**
 * The `transformObject` of src/app.ts. Changes the document in place and
 * returns it. An operation with no row keeps its route's own answers (made
 * problem+json) and no operationId; test/openapi-document.test.ts names it.
 */
export function completeDocument<D extends OpenApiDocument>(doc: D, prefix: string): D {
  (doc as OpenApiDocument).servers = [{ url: '/', description: 'the service that serves this document' }];
  (doc as OpenApiDocument).tags = TAGS.map((t) => ({ ...t }));
  const info = (doc as OpenApiDocument).info as Record<string, unknown> | undefined;
  if (info) info.contact = { ...CONTACT };
  doc.components.securitySchemes = {
    [BEARER]: {
      type: 'http',
      scheme: 'bearer',
      description:
        'Required when DESK_TOKEN or DESK_USERS_FILE is set: `Authorization: Bearer <token>`; without either, the service answers loopback only and asks for none (docs/security.md).',
    },
    [QUERY_TOKEN]: {
      type: 'apiKey',
      in: 'query',
      name: 'token',
      description: 'The same token as `?token=`, for GET /api/desk/events only: a browser EventSource cannot send headers.',
    },
  };
  doc.components.headers = {
    DeskAnswerEtag: {
      description:
        'A weak ETag of the whole answer (the template with its state, problems and card): send it back as If-None-Match to be answered 304 with no body while nothing the answer is made of changed. Never an If-Match: writes take the strong ETag',
      schema: { type: 'string' },
    },
    ETag: {
      description:
        'A strong ETag of the bytes that load; send it back as If-Match on the next write, which answers 412 precondition_failed if it changed in between',
      schema: { type: 'string' },
    },
    RetryAfter: { description: 'seconds to wait before sending it again', schema: { type: 'integer', minimum: 0 } },
    WWWAuthenticate: { description: 'the bearer challenge: `Bearer realm="desk"`, with `error="invalid_token"` for a wrong token', schema: { type: 'string' } },
  };
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const row = operationOf(prefix, path, method);
      completeOperation(op, row, path === `${prefix}/events`);
      if (row) op.description = [op.description, operationDescription(row, method, path)].filter(Boolean).join('\n\n');
    }
  }
  return doc;
}

function completeOperation(op: OperationObject, row: Operation | undefined, queryToken: boolean): void {
  if (row) {
    op.operationId = row.operationId;
    // the least role a user of DESK_USERS_FILE needs (docs/security.md); a generator passes x- keys through
    op['x-desk-role'] = row.role;
  }
  // `{}`: no token needed when the service runs without one
  op.security = [{ [BEARER]: [] }, ...(queryToken ? [{ [QUERY_TOKEN]: [] }] : []), {}];

  // A route's own error schemas stay (a launch refusal carries its `draft`); its 4xx/5xx ranges give way to each status spelled out.
  const own: Record<string, Response> = {};
  for (const [status, response] of Object.entries(op.responses)) if (/^[45]\d\d$/.test(status)) own[status] = response;
  for (const status of Object.keys(op.responses)) if (/^[45]/.test(status)) delete op.responses[status];
  const statuses = new Set<number>([...EVERY_OPERATION, ...(row?.errors ?? []), ...Object.keys(own).map(Number)]);
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const routeOwn = own[String(status)];
    op.responses[String(status)] = problemResponse(status, routeOwn?.content?.['application/json']?.schema ?? { $ref: PROBLEM_SCHEMA_REF }, routeOwn?.description);
  }

  for (const [status, response] of Object.entries(op.responses)) {
    if (!/^2\d\d$/.test(status)) continue;
    if (response.description === 'Default Response') response.description = SUCCESS[status] ?? 'Success';
    if (row?.content && response.content?.['application/json']) {
      response.content = { [row.content]: response.content['application/json'] };
    }
    if (row?.etag) response.headers = { ...response.headers, ETag: { $ref: '#/components/headers/ETag' } };
    if (row?.answerEtag && status === '200') response.headers = { ...response.headers, 'desk-answer-etag': { $ref: '#/components/headers/DeskAnswerEtag' } };
  }
}

/**
 * What an operation's row adds to its summary, as the sentences a generated
 * client shows on the call: the least role, the refusals of its own, the
 * ETag, and the docs/api.md section with the examples.
 */
function operationDescription(row: Operation, method: string, path: string): string {
  const own = row.errors.length ? `Besides the refusals every operation can answer, it answers ${row.errors.join(', ')}.` : 'It answers only the refusals every operation can.';
  const etag = row.etag ? ' Its success carries the ETag to send back as If-Match.' : '';
  const section = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;
  return `A user of the users file needs the ${row.role} role or above (docs/security.md, Users and roles). ${own}${etag} Examples in docs/api.md, \`${section}\`.`;
}

/** Headers a refusal of that status carries (docs/api.md, Error codes; docs/security.md). */
const REFUSAL_HEADERS: Partial<Record<ErrorStatus, Record<string, { $ref: string }>>> = {
  401: { 'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' } },
  429: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
  503: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
};

function problemResponse(status: number, schema: unknown, description?: string): Response {
  const reason = REASONS[status as ErrorStatus] ?? 'Error';
  const headers = REFUSAL_HEADERS[status as ErrorStatus];
  return {
    description: description && description !== 'Default Response' ? description : `${reason}: the refusal, its \`code\` one of docs/api.md's Error codes`,
    ...(headers ? { headers } : {}),
    content: { [PROBLEM_JSON]: { schema } },
  };
}
