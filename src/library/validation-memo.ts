import type { Catalogue } from '../template/model.js';
import type { Validation } from '../template/validate.js';
import type { CatalogueSnapshot, LibraryContext } from './context.js';

/**
 * Validation memoised per template name on what it depends on (issue 5 §1):
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
  /** every membership question asked, with its answer; null when the validator depended on the whole catalogue */
  asked: Asked[] | null;
  result: Validation;
  /** the memo this one replaced: a save validates the new bytes while the old ones still load, and both are asked for again */
  older?: ValidationMemo;
}

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

function stillHolds(m: ValidationMemo, cat: Catalogue): boolean {
  return m.asked?.every((a) => cat[a.set].has(a.name) === a.had) ?? false;
}

/** The validation of `src.text` (whose sha256 is `hash`; the text is decoded only when validated) as template `name` against the snapshot, from the memo when it still holds. */
export function validated(ctx: LibraryContext, name: string, src: { readonly text: string }, hash: string, cat: CatalogueSnapshot): Validation {
  const latest = ctx.memo.get(name);
  for (const m of [latest, latest?.older]) {
    if (!m || m.hash !== hash) continue;
    if (m.gen === cat.gen || stillHolds(m, cat.catalogue)) {
      m.gen = cat.gen;
      if (m !== latest) ctx.memo.set(name, { ...m, older: latest && { ...latest, older: undefined } });
      return m.result;
    }
  }
  const log: { asked: Asked[] | null } = { asked: [] };
  const catalogue: Catalogue = { roles: recording(cat.catalogue.roles, 'roles', log), templates: recording(cat.catalogue.templates, 'templates', log) };
  // kept as a deep copy: the validator's strings are slices of the source, and
  // would keep every source text alive for as long as its memo (issue 5: RSS)
  const result = structuredClone(ctx.validate(src.text, { name, catalogue }));
  // the names asked about are slices of the source too: copied for the same reason
  ctx.memo.set(name, { hash, gen: cat.gen, asked: structuredClone(log.asked), result, older: latest && { ...latest, older: undefined } });
  return result;
}
