import type { Catalogue } from '../template/model.js';
import type { TemplateOutline } from './types.js';
import type { Validation } from '../template/validate.js';
import type { CatalogueSnapshot, LibraryContext } from './context.js';
import { markUsed } from './recent.js';

/**
 * Validation memoised per template name on what it depends on:
 * the content hash, and the catalogue. The validator is pure (no I/O), and it
 * sees the catalogue only through the answers it gets, so each memo keeps the
 * questions it asked — "is there a role `auditor`?", "a template `origin`?" —
 * and their answers. When the catalogue changes (a role or template added or
 * removed, by hand or by a write), a memo stays good exactly when every one
 * of its questions still has the same answer; anything else — a base that
 * appeared, a role that went — validates again. A validator that walks a set
 * instead of asking (size, iteration) depends on all of it, and its memo
 * lasts only while the catalogue is the same snapshot.
 */
export interface ValidationMemo {
  hash: string;
  /** the snapshot generation the memo was last proven against */
  gen: number;
  /**
   * every membership question asked, with its answer, as a JSON array: `r1auditor`
   * (a role `auditor`: yes), `t0origin` (a template `origin`: no) — one string,
   * not an object per question, as 10,000 memos ask about five each; null
   * when the validator depended on the whole catalogue
   */
  asked: string | null;
  /** what a list shows of the validation, kept for every template */
  outline: TemplateOutline;
  /** the whole validation, kept for the FULL_KEPT most recently used memos only (fullValidation validates again) */
  full?: Validation;
  /** the memo this one replaced: a save validates the new bytes while the old ones still load, and both are asked for again */
  older?: ValidationMemo;
}

/** How many whole validations (model and problems) are kept; the rest keep their outline (issue 5: RSS at 10,000). */
export const FULL_KEPT = 256;

type Asked = { set: 'roles' | 'templates'; name: string; had: boolean };

/** A read-only set that answers `has` from the real one and writes down each question. */
function recording(real: ReadonlySet<string>, set: Asked['set'], log: { asked: Asked[] | null }): ReadonlySet<string> {
  const whole = () => {
    log.asked = null;
    return real;
  };
  return {
    has(name: string) {
      const had = real.has(name);
      log.asked?.push({ set, name, had });
      return had;
    },
    get size() {
      return whole().size;
    },
    forEach(cb, thisArg) {
      for (const v of whole()) cb.call(thisArg, v, v, this);
    },
    entries: () => whole().entries(),
    keys: () => whole().keys(),
    values: () => whole().values(),
    [Symbol.iterator]: () => whole()[Symbol.iterator](),
  } as ReadonlySet<string>;
}

/** As JSON: a fresh string (the names asked about are slices of the source and would hold it alive), and any name, even one with a line break, reads back whole. */
function encode(asked: Asked[]): string {
  return JSON.stringify(asked.map((a) => `${a.set === 'roles' ? 'r' : 't'}${a.had ? 1 : 0}${a.name}`));
}

function stillHolds(m: ValidationMemo, cat: Catalogue): boolean {
  if (m.asked === null) return false;
  return (JSON.parse(m.asked) as string[]).every((q) => (q[0] === 'r' ? cat.roles : cat.templates).has(q.slice(2)) === (q[1] === '1'));
}

/** A memo kept whole: the least recently used one past FULL_KEPT drops its validation. */
function keepFull(ctx: LibraryContext, m: ValidationMemo, v: Validation): Validation {
  m.full = v;
  const dropped = markUsed(ctx.fulls, m, FULL_KEPT);
  if (dropped) dropped.full = undefined;
  return v;
}

/** A memo as the `older` of a new one: the same object (its whole validation, if kept, stays bounded by FULL_KEPT), without a chain of its own. */
function asOlder(m: ValidationMemo | undefined): ValidationMemo | undefined {
  if (m) m.older = undefined;
  return m;
}

/**
 * The outline of a validation, as fresh strings: the validator's strings are
 * slices of the source and would keep every source text alive for as long
 * as its memo.
 */
function outlineOf(v: Validation): TemplateOutline {
  const h = v.template?.header;
  let errors = 0;
  let warnings = 0;
  for (const p of v.problems) {
    if (p.severity === 'error') errors++;
    else if (p.severity === 'warning') warnings++;
  }
  const copy = (x: string | undefined) => (x === undefined ? null : (JSON.parse(JSON.stringify(x)) as string));
  return {
    valid: v.valid,
    purpose: copy(h?.purpose),
    base: copy(h?.base),
    ticket: v.template?.ticket ?? false,
    writes: h?.writes ?? false,
    closes_ticket: h?.closes_ticket ?? false,
    errors,
    warnings,
  };
}

/** The memo of template `name` at `hash` that still holds against the snapshot, or null. */
function holding(ctx: LibraryContext, name: string, hash: string, cat: CatalogueSnapshot): ValidationMemo | null {
  const latest = ctx.memo.get(name);
  for (const m of [latest, latest?.older]) {
    if (!m || m.hash !== hash) continue;
    if (m.gen === cat.gen || stillHolds(m, cat.catalogue)) {
      m.gen = cat.gen;
      if (m !== latest) {
        // the older bytes load again (a save undone by hand): they become the latest, the same object
        m.older = asOlder(latest);
        ctx.memo.set(name, m);
      }
      return m;
    }
  }
  return null;
}

/**
 * The memo of `src.text` (whose sha256 is `hash`; the text is decoded only
 * when validated) as template `name` against the snapshot: kept when it still
 * holds, else validated, its questions recorded and its outline kept — and
 * with `keep`, its whole validation among the FULL_KEPT.
 */
export function validated(ctx: LibraryContext, name: string, src: { readonly text: string }, hash: string, cat: CatalogueSnapshot, keep = true): ValidationMemo {
  const kept = holding(ctx, name, hash, cat);
  if (kept) return kept;
  const latest = ctx.memo.get(name);
  const log: { asked: Asked[] | null } = { asked: [] };
  const catalogue: Catalogue = { roles: recording(cat.catalogue.roles, 'roles', log), templates: recording(cat.catalogue.templates, 'templates', log) };
  const result = ctx.validate(src.text, { name, catalogue });
  const m: ValidationMemo = { hash, gen: cat.gen, asked: log.asked && encode(log.asked), outline: outlineOf(result), older: asOlder(latest) };
  ctx.memo.set(name, m);
  // a list of thousands keeps outlines alone: whole validations kept there would
  // only outlive a few scavenges each and grow the heap (issue 5: RSS at 10,000)
  if (keep) keepFull(ctx, m, result);
  return m;
}

/**
 * The whole validation of a memo `validated` answered for this snapshot: the
 * kept one, or the source validated again — pure, and the memo proved its
 * catalogue answers unchanged, so it is the same validation.
 */
export function fullValidation(ctx: LibraryContext, m: ValidationMemo, name: string, src: { readonly text: string }, cat: CatalogueSnapshot): Validation {
  if (m.full) {
    ctx.fulls.delete(m);
    ctx.fulls.add(m);
    return m.full;
  }
  return keepFull(ctx, m, ctx.validate(src.text, { name, catalogue: cat.catalogue }));
}
