import { askToken } from './auth.js';
import type { Problem } from '../schema/errors.js';

/**
 * The page's one way to the service: JSON in and out, the ETag of what it
 * read, `If-Match` on writes, problem+json turned into ApiError, and the
 * bearer token asked for on a 401 and kept for the tab (sessionStorage).
 */
const TOKEN_KEY = 'desk-library.token';
const BASE = '/api/desk';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** the problem+json `code`, e.g. `precondition_failed` */
    readonly code: string,
    readonly detail: string,
    readonly problems: Problem[],
    /** the whole problem body, for the members some answers add (a refreshed launch draft's `draft`) */
    readonly body: Record<string, unknown> = {},
  ) {
    super(detail || `${status} ${code}`);
    this.name = 'ApiError';
  }
}

export interface Answer<T> {
  status: number;
  body: T;
  etag: string | null;
}

export interface RequestOptions {
  body?: unknown;
  ifMatch?: string | null;
  /** `*`: create only — 412 when the name already exists */
  ifNoneMatch?: '*';
}

export function token(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

function setToken(t: string): void {
  try {
    sessionStorage.setItem(TOKEN_KEY, t);
  } catch {
    // storage refused (private mode): the token lives only in this call chain
  }
}

/** Sign out: the tab forgets its token; the next request asks for one again. */
export function forgetToken(): void {
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // nothing was kept
  }
}

/**
 * A refusal for the person (403: the role does not allow it) said in the
 * status line in words, whatever the view does with the error: a view that
 * only shows it quietly, or not at all, never leaves the click unanswered.
 */
function sayRefused(detail: string): void {
  const el = document.getElementById('status');
  if (!el) return;
  el.textContent = `Refused: ${detail}`;
  el.dataset.kind = 'error';
  el.dataset.refusal = 'true';
  el.classList.remove('visually-hidden');
  el.hidden = false;
}

export async function call<T>(method: string, path: string, opts: RequestOptions = {}): Promise<Answer<T>> {
  let refused = false;
  for (;;) {
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.ifMatch) headers['if-match'] = opts.ifMatch;
    if (opts.ifNoneMatch) headers['if-none-match'] = opts.ifNoneMatch;
    const t = token();
    if (t) headers.authorization = `Bearer ${t}`;
    const res = await fetch(BASE + path, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      cache: 'no-store',
    });
    if (res.status === 401) {
      // Ask once per refusal; the same form serves every request waiting on it.
      setToken(await askToken(refused || t !== null));
      refused = true;
      continue;
    }
    const body = await readBody(res);
    if (!res.ok) {
      const b = (body ?? {}) as Record<string, unknown>;
      if (res.status === 403 && b.code === 'forbidden') sayRefused(typeof b.detail === 'string' ? b.detail : 'your role does not allow this');
      throw new ApiError(
        res.status,
        typeof b.code === 'string' ? b.code : String(res.status),
        typeof b.detail === 'string' ? b.detail : typeof b.title === 'string' ? b.title : res.statusText,
        Array.isArray(b.problems) ? (b.problems as Problem[]) : [],
        b,
      );
    }
    return { status: res.status, body: body as T, etag: res.headers.get('etag') };
  }
}

async function readBody(res: Response): Promise<unknown> {
  if (res.status === 204) return null;
  const text = await res.text();
  if (!text) return null;
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return null;
    }
  }
  return { detail: text };
}

export const enc = encodeURIComponent;
