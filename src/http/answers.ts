/**
 * Library entries → HTTP answer bodies (docs/api.md): plain objects that
 * fastify serializes through each route's response schema. Nothing here
 * keeps anything.
 */
import type { FastifyReply } from 'fastify';
import type { RoleEntry } from '../library/types.js';

export function roleSummary(r: RoleEntry) {
  return {
    name: r.name,
    shipped: r.shipped,
    state: r.state,
    edited_outside: r.edited_outside,
    has_kit: r.kit !== null,
    valid: r.valid,
  };
}

export function roleAnswer(r: RoleEntry) {
  return {
    name: r.name,
    state: r.state,
    shipped: r.shipped,
    edited_outside: r.edited_outside,
    role_md: r.role_md,
    kit: r.kit,
    shipped_role_md: r.shipped_role_md,
    shipped_kit: r.shipped_kit,
    valid: r.valid,
    problems: r.problems,
    ...(r.diverged ? { diverged: r.diverged } : {}),
  };
}

/** Every template and role answer carries the ETag of the bytes that load. */
export function withEtag(reply: FastifyReply, etag: string): FastifyReply {
  return reply.header('etag', etag);
}

/**
 * A precondition header as handed to the library, which compares it with
 * the current ETag (RFC 9110 §13.1: `*` or a list of tags). A repeated
 * header is one list.
 */
export function precondition(header: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(header) ? header.join(', ') : header;
  const v = raw?.trim();
  return v === undefined || v === '' ? undefined : v;
}

/** If-Match, as precondition reads it. */
export const ifMatch = precondition;
