import type { CatalogueRefs } from '../../template/lookups.js';
import type { Catalogue } from '../../template/model.js';
import type { Validation, Validator, validateTemplate } from '../../template/validate.js';
import { sha256Hex } from '../disk/markers.js';
import type { TemplateOutline } from '../entries.js';

/**
 * Validations memoised on what they depend on: the bytes (their sha256), the
 * name checked, and the catalogue — the cold list is 93% validation, so this
 * is the one cache that buys real time. The validator is pure and says what
 * it looked up in the catalogue and what it found (its `refs`: "a role
 * `auditor`? yes", "a template `origin`? no", "the kit of `worker`? these
 * tools"), so a memo keeps those refs. Under a catalogue of other names the
 * memo holds exactly when every ref still has the same answer; else the
 * bytes are validated again. A validation that walked a whole set depends on
 * all of it: that memo holds only under the same names (the same
 * generation). docs/performance.md, "Why it cannot be stale".
 *
 * Every memo keeps its outline (what a list shows); the whole validation
 * (problems, model) is kept for the WHOLE_KEPT most recently used, as the
 * list of 10,000 would otherwise hold every model.
 */

/**
 * The catalogue of one look at the library, and its generation: a token
 * that is new exactly when the names are (look.ts). Compared by identity,
 * so no counter is kept anywhere.
 */
export interface CatalogueGen {
  catalogue: Catalogue;
  gen: object;
}

/** A validation's refs as the memo keeps them: the three records, in this order. */
type KeptRefs = [roles: CatalogueRefs['roles'], templates: CatalogueRefs['templates'], kits: CatalogueRefs['kits']];

/**
 * One memo per name and bytes — the list of 10,000 keeps one for each
 * template, so each is one small record: the outline as fields (a few flags,
 * two counts, the two strings the list shows), the refs as one string, the
 * memos of other bytes of the name chained from it (no array per name).
 */
interface Memo {
  hash: string;
  /** the generation the memo was last proven under */
  gen: object;
  /** the validation's refs as one JSON string of KeptRefs, shared by every memo that asked the same (interned); null when it walked a whole set */
  refs: string | null;
  purpose: string | null;
  base: string | null;
  /** FLAGS' bits */
  flags: number;
  errors: number;
  warnings: number;
  validation: Validation | undefined;
  /** the memo of other bytes of this name, used before this one */
  older: Memo | null;
}

const FLAGS = { valid: 1, ticket: 2, writes: 4, closes_ticket: 8 } as const;

/** How many whole validations are kept (RSS after listing 10,000). */
export const WHOLE_KEPT = 256;
/** Memos kept per name: the bytes that load and the few before (a save, undone by hand). */
const PER_NAME = 3;
/** Memos kept of validations without a name (the card's diff), keyed on the bytes alone. */
const UNNAMED = 64;
/** Distinct strings the intern pool holds before it starts afresh (it only saves memory; forgetting loses nothing). */
const POOL = 4_096;

/**
 * Refs and base names repeat across templates (the same roles asked, the
 * same base), so each is kept once: a memo keeps the pool's string. Fresh
 * strings go in, so a memo keeps no slice of a source alive.
 */
class Pool {
  private readonly strings = new Map<string, string>();

  of(s: string): string {
    const had = this.strings.get(s);
    if (had !== undefined) return had;
    if (this.strings.size >= POOL) this.strings.clear();
    this.strings.set(s, s);
    return s;
  }
}

/** Fresh: JSON.stringify writes a string of its own, so a memo keeps no slice of the source alive. */
function keep(refs: CatalogueRefs, pool: Pool): string | null {
  return refs.whole ? null : pool.of(JSON.stringify([refs.roles, refs.templates, refs.kits] satisfies KeptRefs));
}

/** The same tools in the same order, or no kit on either side. */
function sameTools(now: readonly string[] | undefined, then: string[] | null): boolean {
  if (now === undefined || then === null) return now === undefined && then === null;
  return now.length === then.length && now.every((t, i) => t === then[i]);
}

/** Whether `cat` answers every ref of `m` as the catalogue it was validated under did. */
function stillHolds(m: Memo, cat: Catalogue): boolean {
  if (m.refs === null) return false;
  // JSON.parse makes own properties, so a name such as `__proto__` is an entry like any other
  const [roles, templates, kits] = JSON.parse(m.refs) as KeptRefs;
  return (
    Object.entries(roles).every(([r, known]) => cat.roles.has(r) === known) &&
    Object.entries(templates).every(([t, held]) => cat.templates.has(t) === held) &&
    Object.entries(kits).every(([r, tools]) => sameTools(cat.kits?.get(r), tools))
  );
}

/** A fresh copy: the validator's strings are slices of the source and would keep every source alive. */
const fresh = (x: string | undefined) => (x === undefined ? null : (JSON.parse(JSON.stringify(x)) as string));

/** The memo of a validation, at the front of `older`'s chain. */
function memoOf(v: Validation, hash: string, gen: object, pool: Pool, older: Memo | null): Memo {
  const h = v.template?.header;
  let errors = 0;
  let warnings = 0;
  for (const p of v.problems) {
    if (p.severity === 'error') errors++;
    else if (p.severity === 'warning') warnings++;
  }
  const base = fresh(h?.base);
  const flags =
    (v.valid ? FLAGS.valid : 0) | (v.template?.ticket ? FLAGS.ticket : 0) | (h?.writes ? FLAGS.writes : 0) | (h?.closes_ticket ? FLAGS.closes_ticket : 0);
  return { hash, gen, refs: keep(v.refs, pool), purpose: fresh(h?.purpose), base: base === null ? null : pool.of(base), flags, errors, warnings, validation: undefined, older };
}

/** What a list shows of a memo: a new object at each call, as the memo keeps its fields. */
function outlineOf(m: Memo): TemplateOutline {
  return {
    valid: (m.flags & FLAGS.valid) !== 0,
    purpose: m.purpose,
    base: m.base,
    ticket: (m.flags & FLAGS.ticket) !== 0,
    writes: (m.flags & FLAGS.writes) !== 0,
    closes_ticket: (m.flags & FLAGS.closes_ticket) !== 0,
    errors: m.errors,
    warnings: m.warnings,
  };
}

export class ValidationMemo {
  /** per name checked ('' for none): the memo used last, the others chained from it, most recently used first */
  private readonly memos = new Map<string, Memo>();
  private readonly pool = new Pool();
  /** memos holding their whole validation, least recently used first */
  private readonly wholes = new Set<Memo>();

  constructor(private readonly validate: typeof validateTemplate) {}

  /** The outline of `hash` validated as `name`, when a kept memo holds under this catalogue; else null. */
  outline(name: string, hash: string, at: CatalogueGen): TemplateOutline | null {
    const m = this.find(name, hash, at);
    return m && outlineOf(m);
  }

  /** `source` (whose sha256 is `hash`) validated as `name`: the memo's, or validated now and memoised. */
  outlineOf(name: string, source: string, hash: string, at: CatalogueGen): TemplateOutline {
    return outlineOf(this.find(name, hash, at) ?? this.run(name, source, hash, at).memo);
  }

  /**
   * The whole validation (problems and model), with its outline; kept among
   * the WHOLE_KEPT. `refs`: what it asked the catalogue and was told, as
   * kept (null when it walked a whole set) — with the bytes' hash, all the
   * validation depends on, so an answer built from it can be keyed on it.
   */
  whole(name: string | undefined, source: string, hash: string, at: CatalogueGen): { outline: TemplateOutline; validation: Validation; refs: string | null } {
    const key = name ?? '';
    const kept = this.find(key, hash, at);
    // a memo that let its validation go still holds under this catalogue: validating again gives the same one (pure)
    const { memo, validation } = kept
      ? { memo: kept, validation: kept.validation ?? this.validateAs(key, source, at) }
      : this.run(key, source, hash, at);
    this.keepWhole(memo, validation);
    return { outline: outlineOf(memo), validation, refs: memo.refs };
  }

  /**
   * The outline and kept refs of `hash` validated as `name` (undefined: as
   * no name), when a kept memo holds under this catalogue — without the
   * bytes; else null.
   */
  proven(name: string | undefined, hash: string, at: CatalogueGen): { outline: TemplateOutline; refs: string | null } | null {
    const m = this.find(name ?? '', hash, at);
    return m && { outline: outlineOf(m), refs: m.refs };
  }

  /** A validator for the card under this look's catalogue, answering from the memo. */
  validator(at: CatalogueGen): Validator {
    return (source, options) => {
      if (options.catalogue !== at.catalogue) return this.validate(source, options);
      return this.whole(options.name, source, sha256Hex(source), at).validation;
    };
  }

  /** Forgets the memos of names no longer in the catalogue. */
  prune(templates: ReadonlySet<string>): void {
    for (const [name, first] of this.memos) {
      if (name !== '' && !templates.has(name)) {
        for (let m: Memo | null = first; m; m = m.older) this.wholes.delete(m);
        this.memos.delete(name);
      }
    }
  }

  private find(key: string, hash: string, at: CatalogueGen): Memo | null {
    const first = this.memos.get(key);
    let before: Memo | null = null;
    let m = first ?? null;
    while (m && m.hash !== hash) {
      before = m;
      m = m.older;
    }
    if (!m) return null;
    // under the generation it was proven under, the names are the same: no ref needs asking
    if (m.gen !== at.gen) {
      if (!stillHolds(m, at.catalogue)) return null;
      m.gen = at.gen;
    }
    if (before) {
      // to the front: the chain is most recently used first
      before.older = m.older;
      m.older = first!;
      this.memos.set(key, m);
    }
    return m;
  }

  private validateAs(key: string, source: string, at: CatalogueGen): Validation {
    return this.validate(source, key === '' ? { catalogue: at.catalogue } : { name: key, catalogue: at.catalogue });
  }

  /** Validates now and memoises the outline and the refs; the caller decides whether the validation is kept. */
  private run(key: string, source: string, hash: string, at: CatalogueGen): { memo: Memo; validation: Validation } {
    const validation = this.validateAs(key, source, at);
    // the chain without a memo of these bytes (one that no longer held), the new one in front
    let first = this.memos.get(key) ?? null;
    if (first?.hash === hash) {
      this.wholes.delete(first);
      first = first.older;
    }
    for (let m = first; m?.older; m = m.older) {
      if (m.older.hash === hash) {
        this.wholes.delete(m.older);
        m.older = m.older.older;
        break;
      }
    }
    const memo = memoOf(validation, hash, at.gen, this.pool, first);
    // at most `limit` per name: the least recently used beyond go
    let i = 1;
    for (let m = memo; m.older; m = m.older, i++) {
      if (i === (key === '' ? UNNAMED : PER_NAME)) {
        for (let d: Memo | null = m.older; d; d = d.older) this.wholes.delete(d);
        m.older = null;
        break;
      }
    }
    this.memos.set(key, memo);
    return { memo, validation };
  }

  private keepWhole(m: Memo, v: Validation): void {
    m.validation = v;
    this.wholes.delete(m);
    this.wholes.add(m);
    if (this.wholes.size > WHOLE_KEPT) {
      const oldest = this.wholes.values().next().value!;
      this.wholes.delete(oldest);
      oldest.validation = undefined;
    }
  }
}
