/**
 * Library entries → HTTP answer bodies (docs/api.md). Route
 * handlers stay thin by calling these; nothing here writes.
 */
import type { FastifyReply } from 'fastify';
import type { Library, LibraryView, RoleEntry, TemplateEntry } from '../library/types.js';
import { buildCard, type Card, type CardAgainst } from '../template/card.js';
import type { Catalogue } from '../template/model.js';
import { isTemplateName } from '../template/names.js';
import { type Validation, validateTemplate } from '../template/validate.js';

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

/** From the entry's outline alone: a listed entry keeps no problems or model (src/library/types.ts). */
function buildSummary(e: TemplateEntry) {
  const o = e.outline;
  return {
    name: e.name,
    purpose: o.purpose,
    shipped: e.shipped,
    read_only: e.read_only,
    state: e.state,
    edited_outside: e.edited_outside,
    ticket: o.ticket,
    writes: o.writes,
    closes_ticket: o.closes_ticket,
    base: o.base,
    valid: e.valid,
    errors: o.errors,
    warnings: o.warnings,
  };
}

/**
 * What a library template's card diffs against: the header's base when the
 * library holds it; else, for an operator copy of a shipped template, today's
 * shipped bytes (the "same name" template is the entry itself, so the shipped
 * version is the one it varies); else nothing.
 */
export async function cardAgainst(library: Pick<Library, 'getTemplate'>, e: TemplateEntry): Promise<CardAgainst | null> {
  return (await againstTagged(library, e))?.against ?? null;
}

/** cardAgainst, with a tag that names those bytes: the base's ETag, or `shipped` (read once at start, so fixed for the library). */
async function againstTagged(library: Pick<Library, 'getTemplate'>, e: TemplateEntry): Promise<{ against: CardAgainst; tag: string } | null> {
  const base = e.outline.base;
  if (base && base !== e.name && isTemplateName(base)) {
    const b = await library.getTemplate(base);
    // the source is read only when a card is built: a kept card needs its tag alone
    if (b) return { against: { name: b.name, kind: 'base', get source() { return b.source; } }, tag: b.etag };
  }
  if (e.shipped_source !== null && e.state !== 'shipped') {
    return { against: { name: e.name, kind: 'shipped', source: e.shipped_source }, tag: 'shipped' };
  }
  return null;
}

/**
 * Cards kept per catalogue object (the library answers the same object while
 * its names are unchanged) and, within it, per template bytes and what the
 * card diffs against: a card is a pure function of exactly these, so a kept
 * one is never stale. Bounded: the oldest go first.
 */
const cards = new WeakMap<Catalogue, Map<string, Card>>();
const CARDS_PER_CATALOGUE = 1_000;

async function cardOf(library: Pick<Library, 'getTemplate'>, e: TemplateEntry, cat: Catalogue): Promise<Card> {
  const a = await againstTagged(library, e);
  const key = `${e.name}\0${e.etag}\0${a ? `${a.against.kind}\0${a.against.name}\0${a.tag}` : ''}`;
  let kept = cards.get(cat);
  if (!kept) {
    kept = new Map();
    cards.set(cat, kept);
  }
  let card = kept.get(key);
  if (!card) {
    card = buildCard(e.source, { name: e.name }, cat, a?.against ?? null, cardValidator(cat, e));
    if (kept.size >= CARDS_PER_CATALOGUE) kept.delete(kept.keys().next().value!);
    kept.set(key, card);
  }
  return card;
}

/** Builds and keeps the card of an entry (a save's, while its files are written), so the answer finds it kept. */
export async function warmCard(library: Pick<Library, 'getTemplate'>, e: TemplateEntry, cat: Catalogue): Promise<void> {
  await cardOf(library, e, cat);
}

export async function templateAnswer(library: Library, e: TemplateEntry, catalogue?: Catalogue) {
  return answerOf(e, await cardOf(library, e, catalogue ?? (await library.catalogue())));
}

/**
 * The validations a card asks for (its template with and without the name
 * check, and what it diffs against), kept per catalogue object and keyed on
 * the name option and the exact source — validation is pure, so a kept one
 * is the answer. The entry's own validation, which the library already did
 * against this catalogue's names, is put in first. Bounded per catalogue.
 */
const validations = new WeakMap<Catalogue, Map<string, Validation>>();
const VALIDATIONS_PER_CATALOGUE = 500;

function cardValidator(cat: Catalogue, e: TemplateEntry): typeof validateTemplate {
  let kept = validations.get(cat);
  if (!kept) {
    kept = new Map();
    validations.set(cat, kept);
  }
  const store = kept;
  const keyOf = (name: string | undefined, source: string) => `${name ?? ''}\0${source}`;
  const put = (k: string, v: Validation) => {
    if (store.size >= VALIDATIONS_PER_CATALOGUE) store.delete(store.keys().next().value!);
    store.set(k, v);
  };
  if (!store.has(keyOf(e.name, e.source))) put(keyOf(e.name, e.source), { template: e.model, problems: e.problems, valid: e.valid });
  return (source, options) => {
    if (options.catalogue !== cat) return validateTemplate(source, options);
    // the card's diff asks for the template without the name check: the name only adds
    // `name.mismatch` (src/template/header.ts), so the entry's own validation answers it
    if (options.name === undefined && source === e.source) return withoutNameCheck(e);
    const k = keyOf(options.name, source);
    let v = store.get(k);
    if (!v) {
      v = validateTemplate(source, options);
      put(k, v);
    }
    return v;
  };
}

/** An entry's validation as it would be without the name check: the same model, less `name.mismatch`. */
function withoutNameCheck(e: TemplateEntry): Validation {
  const problems = e.problems.filter((p) => p.code !== 'name.mismatch');
  return { template: e.model, problems, valid: problems.every((p) => p.severity !== 'error') };
}

/** One look at the library for one request (Library.view), or its plain equivalent for a library without views. */
export async function viewOf(library: Library): Promise<LibraryView> {
  if (library.view) return library.view();
  return { catalogue: await library.catalogue(), getTemplate: (name) => library.getTemplate(name) };
}

/** The bytes of a template's answer, serialised by the route's response schema, kept per entry object while its card is the same. */
const answerBytes = new WeakMap<TemplateEntry, { card: Card; body: Buffer }>();

/**
 * Sends templateAnswer's body, serialised once per entry and card: the
 * library answers an unchanged template with the same entry object and
 * cardOf answers the same card while its inputs are unchanged, so the
 * same pair is the same bytes (docs/performance.md).
 */
export async function sendTemplateAnswer(reply: FastifyReply, view: LibraryView, e: TemplateEntry): Promise<FastifyReply> {
  const card = await cardOf(view, e, view.catalogue);
  let kept = answerBytes.get(e);
  if (!kept || kept.card !== card) {
    kept = { card, body: Buffer.from(reply.serialize(answerOf(e, card)) as string) };
    answerBytes.set(e, kept);
  }
  // already serialised: fastify sends a Buffer as it is
  return reply.type('application/json; charset=utf-8').send(kept.body);
}

function answerOf(e: TemplateEntry, card: Card) {
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

/** Every template and role answer carries the ETag of the bytes that load (If-Match checks it). */
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
