/**
 * Library entries → HTTP answer bodies (library-and-api.md §4). Route
 * handlers stay thin by calling these; nothing here writes.
 */
import type { FastifyReply } from 'fastify';
import type { Library, RoleEntry, TemplateEntry } from '../library/types.js';
import { buildCard, type Card, type CardAgainst } from '../template/card.js';
import type { Catalogue } from '../template/model.js';
import { isTemplateName } from '../template/names.js';

/**
 * The library answers an unchanged template with the same entry object
 * (src/library/template-entries.ts), so its summary is built once and kept
 * for as long as the entry lives.
 */
const summaries = new WeakMap<TemplateEntry, ReturnType<typeof buildSummary>>();

export function summary(e: TemplateEntry) {
  let s = summaries.get(e);
  if (!s) {
    s = buildSummary(e);
    summaries.set(e, s);
  }
  return s;
}

function buildSummary(e: TemplateEntry) {
  const h = e.model?.header;
  return {
    name: e.name,
    purpose: h?.purpose ?? null,
    shipped: e.shipped,
    read_only: e.read_only,
    state: e.state,
    edited_outside: e.edited_outside,
    ticket: e.model?.ticket ?? false,
    writes: h?.writes ?? false,
    closes_ticket: h?.closes_ticket ?? false,
    base: h?.base ?? null,
    valid: e.valid,
    errors: e.problems.filter((p) => p.severity === 'error').length,
    warnings: e.problems.filter((p) => p.severity === 'warning').length,
  };
}

/**
 * What a library template's card diffs against: the header's base when the
 * library holds it; else, for an operator copy of a shipped template, today's
 * shipped bytes (the "same name" template is the entry itself, so the shipped
 * version is the one it varies); else nothing.
 */
export async function cardAgainst(library: Library, e: TemplateEntry): Promise<CardAgainst | null> {
  const base = e.model?.header.base;
  if (base && base !== e.name && isTemplateName(base)) {
    const b = await library.getTemplate(base);
    if (b) return { name: b.name, kind: 'base', source: b.source };
  }
  if (e.shipped_source !== null && e.state !== 'shipped') {
    return { name: e.name, kind: 'shipped', source: e.shipped_source };
  }
  return null;
}

export async function templateAnswer(library: Library, e: TemplateEntry, catalogue?: Catalogue) {
  const cat = catalogue ?? (await library.catalogue());
  const card: Card = buildCard(e.source, { name: e.name }, cat, await cardAgainst(library, e));
  return {
    name: e.name,
    state: e.state,
    shipped: e.shipped,
    read_only: e.read_only,
    edited_outside: e.edited_outside,
    source: e.source,
    shipped_source: e.shipped_source,
    valid: e.valid,
    problems: e.problems,
    card,
  };
}

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
  };
}

/** Every template and role answer carries the ETag of the bytes that load (§3). */
export function withEtag(reply: FastifyReply, etag: string): FastifyReply {
  return reply.header('etag', etag);
}

/**
 * The If-Match value handed to the library, which compares it strongly with
 * the current ETag (RFC 9110 §13.1.1: `*` or a list of strong tags; a weak
 * tag never matches). A repeated header is one list.
 */
export function ifMatch(header: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(header) ? header.join(', ') : header;
  const v = raw?.trim();
  return v === undefined || v === '' ? undefined : v;
}
