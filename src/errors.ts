/**
 * The one catalogue of errors the service answers with. Each code is stable
 * and documented in docs/api.md (test/docs.test.ts checks it). The library
 * layer throws DeskError with a code from here; the HTTP error handler turns
 * it into application/problem+json (RFC 9457) with the status below.
 */
export const ERROR_CODES = {
  bad_request: { status: 400, title: 'The request is not well formed' },
  invalid_name: { status: 400, title: 'The name does not match the name pattern' },
  unauthorized: { status: 401, title: 'A bearer token is required' },
  read_only: { status: 403, title: 'The template is read-only' },
  forbidden_origin: { status: 403, title: 'Cross-origin state change refused' },
  forbidden: { status: 403, title: "The user's role does not allow this" },
  forbidden_host: { status: 421, title: "The Host header is not this service's name" },
  not_found: { status: 404, title: 'Not found' },
  version_not_found: { status: 404, title: 'No such version in the history' },
  method_not_allowed: { status: 405, title: 'The method is not allowed here' },
  request_timeout: { status: 408, title: 'The request took too long' },
  no_library_root: { status: 409, title: 'The service has no library root; writes are refused' },
  not_shipped: { status: 409, title: 'Not a shipped template or built-in role' },
  not_custom: { status: 409, title: 'A shipped name cannot be deleted; reset it instead' },
  state_conflict: { status: 409, title: 'The action does not apply in the current state' },
  no_kept_base: { status: 409, title: 'There is no kept shipped base to merge over' },
  no_base: { status: 409, title: 'The template declares no base to diff against' },
  nothing_to_rebase: { status: 409, title: 'There is nothing to rebase' },
  no_remote: { status: 409, title: 'No remote is set for the library (DESK_LIBRARY_REMOTE)' },
  symlink_refused: { status: 409, title: 'A path in the library is a symbolic link' },
  too_many_proposals: { status: 409, title: 'Too many proposals are waiting for a decision' },
  too_many_launches: { status: 409, title: 'Too many launch drafts are waiting for a decision' },
  already_decided: { status: 409, title: 'It was already decided' },
  template_changed: { status: 409, title: 'The template changed since the draft; the draft is refreshed onto it' },
  template_invalid_for_launch: { status: 409, title: 'The template is not valid, so it cannot be launched' },
  precondition_failed: { status: 412, title: 'A precondition (If-Match, If-None-Match) does not hold' },
  payload_too_large: { status: 413, title: 'The request body is over the limit' },
  unsupported_media_type: { status: 415, title: 'The body must be application/json' },
  invalid_template: { status: 422, title: 'The template is not valid' },
  invalid_role: { status: 422, title: 'The role is not valid' },
  invalid_proposal: { status: 422, title: 'The proposal is not well formed' },
  invalid_launch: { status: 422, title: 'The launch inputs do not check' },
  too_many_requests: { status: 429, title: 'Too many requests from this client; try again later' },
  too_many_subscribers: { status: 503, title: 'Too many event streams are open; try again later' },
  record_unreadable: { status: 503, title: 'A proposal or launch draft could not be read just now; it is kept, try again' },
  shutting_down: { status: 503, title: 'The service is stopping; try again once it is back' },
  history_unavailable: { status: 503, title: 'The library keeps no history here (git is missing or there is no root)' },
  library_unwritable: { status: 507, title: 'The library folder cannot be written' },
  internal: { status: 500, title: 'Internal error' },
  shipped_invalid: { status: 500, title: 'A shipped or read-only template is not valid; the service refuses to start' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class DeskError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** extra members of the problem+json body, e.g. `problems` */
  readonly extra: Record<string, unknown>;

  constructor(code: ErrorCode, detail: string, extra: Record<string, unknown> = {}) {
    super(detail);
    this.name = 'DeskError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.extra = extra;
  }
}

export function isDeskError(e: unknown): e is DeskError {
  return e instanceof DeskError;
}
