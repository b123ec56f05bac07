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

interface Memo {
  hash: string;
  /** the generation the memo was last proven under */
  gen: object;
  /**
   * The validation's refs as one JSON string of KeptRefs — one string per
   * memo, as the list of 10,000 keeps a memo for each template and records
   * of their own would cost several objects each; null when the validation
   * walked a whole set.
   */
  refs: string | null;
  outline: TemplateOutline;
  validation?: Validation | undefined;
}

/** How many whole validations are kept (RSS after listing 10,000). */
export const WHOLE_KEPT = 256;
/** Memos kept per name: the bytes that load and the few before (a save, undone by hand). */
const PER_NAME = 3;
/** Memos kept of validations without a name (the card's diff), keyed on the bytes alone. */
const UNNAMED = 64;

/** Fresh: JSON.stringify writes a string of its own, so a memo keeps no slice of the source alive. */
function keep(refs: CatalogueRefs): string | null {
  return refs.whole ? null : JSON.stringify([refs.roles, refs.templates, refs.kits] satisfies KeptRefs);
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

/** Fresh strings: the validator's are slices of the source and would keep every source alive. */
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

export class ValidationMemo {
  /** per name checked ('' for none): the memos, most recently used first */
  private readonly memos = new Map<string, Memo[]>();
  /** memos holding their whole validation, least recently used first */
  private readonly wholes = new Set<Memo>();

  constructor(private readonly validate: typeof validateTemplate) {}

  /** The outline of `hash` validated as `name`, when a kept memo holds under this catalogue; else null. */
  outline(name: string, hash: string, at: CatalogueGen): TemplateOutline | null {
    return this.find(name, hash, at)?.outline ?? null;
  }

  /** `source` (whose sha256 is `hash`) validated as `name`: the memo's, or validated now and memoised. */
  outlineOf(name: string, source: string, hash: string, at: CatalogueGen): TemplateOutline {
    return (this.find(name, hash, at) ?? this.run(name, source, hash, at).memo).outline;
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
    return { outline: memo.outline, validation, refs: memo.refs };
  }

  /**
   * The outline and kept refs of `hash` validated as `name` (undefined: as
   * no name), when a kept memo holds under this catalogue — without the
   * bytes; else null.
   */
  proven(name: string | undefined, hash: string, at: CatalogueGen): { outline: TemplateOutline; refs: string | null } | null {
    const m = this.find(name ?? '', hash, at);
    return m && { outline: m.outline, refs: m.refs };
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
    for (const [name, list] of this.memos) {
      if (name !== '' && !templates.has(name)) {
        for (const m of list) this.wholes.delete(m);
        this.memos.delete(name);
      }
    }
  }

  private find(key: string, hash: string, at: CatalogueGen): Memo | null {
    const list = this.memos.get(key);
    if (!list) return null;
    const i = list.findIndex((m) => m.hash === hash);
    if (i < 0) return null;
    const m = list[i]!;
    // under the generation it was proven under, the names are the same: no ref needs asking
    if (m.gen !== at.gen) {
      if (!stillHolds(m, at.catalogue)) return null;
      m.gen = at.gen;
    }
    if (i > 0) {
      list.splice(i, 1);
      list.unshift(m);
    }
    return m;
  }

  private validateAs(key: string, source: string, at: CatalogueGen): Validation {
    return this.validate(source, key === '' ? { catalogue: at.catalogue } : { name: key, catalogue: at.catalogue });
  }

  /** Validates now and memoises the outline and the refs; the caller decides whether the validation is kept. */
  private run(key: string, source: string, hash: string, at: CatalogueGen): { memo: Memo; validation: Validation } {
    const validation = this.validateAs(key, source, at);
    const memo: Memo = { hash, gen: at.gen, refs: keep(validation.refs), outline: outlineOf(validation) };
    const list = (this.memos.get(key) ?? []).filter((x) => x.hash !== hash);
    list.unshift(memo);
    for (const dropped of list.splice(key === '' ? UNNAMED : PER_NAME)) this.wholes.delete(dropped);
    this.memos.set(key, list);
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
