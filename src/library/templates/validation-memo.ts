import type { Catalogue } from '../../template/model.js';
import type { Validation, validateTemplate } from '../../template/validate.js';
import { sha256Hex } from '../disk/markers.js';
import type { TemplateOutline } from '../types.js';

/**
 * Validations memoised on what they depend on: the bytes (their sha256), the
 * name checked, and the catalogue — the cold list is 93% validation, so this
 * is the one cache that buys real time. The validator is pure and sees the
 * catalogue only through the answers it gets, so a memo keeps the questions
 * it asked ("is there a role `auditor`?", "a template `origin`?") and their
 * answers. Under a catalogue of other names the memo holds exactly when
 * every question still has the same answer; else the bytes are validated
 * again. A validator that walks a set instead of asking depends on all of
 * it: that memo holds only under the same names.
 *
 * Every memo keeps its outline (what a list shows); the whole validation
 * (problems, model) is kept for the WHOLE_KEPT most recently used, as the
 * list of 10,000 would otherwise hold every model.
 */

/** The catalogue of one look at the library, and a number that changes exactly when its names do. */
export interface CatalogueGen {
  catalogue: Catalogue;
  gen: number;
}

interface Memo {
  hash: string;
  /** the generation the memo was last proven under */
  gen: number;
  /**
   * the questions asked and their answers, as one JSON array of strings
   * (`r1auditor`: a role `auditor`, yes; `t0origin`: a template `origin`,
   * no); null when the validator depended on the whole catalogue
   */
  asked: string | null;
  outline: TemplateOutline;
  whole?: Validation | undefined;
}

/** How many whole validations are kept (RSS after listing 10,000). */
export const WHOLE_KEPT = 256;
/** Memos kept per name: the bytes that load and the few before (a save, undone by hand). */
const PER_NAME = 3;
/** Memos kept of validations without a name (the card's diff), keyed on the bytes alone. */
const UNNAMED = 64;

type Asked = { set: 'roles' | 'templates'; name: string; had: boolean } | { set: 'kits'; name: string; tools: readonly string[] | null };

/** A read-only set that answers `has` from the real one and writes each question down. */
function recording(real: ReadonlySet<string>, set: 'roles' | 'templates', log: { asked: Asked[] | null }): ReadonlySet<string> {
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

/**
 * Issue 12 (validator rules): the catalogue's kits, asked role by role, each
 * question written down with the tools it answered, as for the sets.
 */
function recordingKits(real: NonNullable<Catalogue['kits']>, log: { asked: Asked[] | null }): NonNullable<Catalogue['kits']> {
  return {
    get(role: string) {
      const tools = real.get(role);
      log.asked?.push({ set: 'kits', name: role, tools: tools ?? null });
      return tools;
    },
  };
}

/** A kit question as written down: `k` and the JSON of [role, tools or null]. */
const kitQuestion = (role: string, tools: readonly string[] | null | undefined) => `k${JSON.stringify([role, tools ?? null])}`;

function encode(a: Asked): string {
  if (a.set === 'kits') return kitQuestion(a.name, a.tools);
  return `${a.set === 'roles' ? 'r' : 't'}${a.had ? 1 : 0}${a.name}`;
}

function stillHolds(m: Memo, cat: Catalogue): boolean {
  if (m.asked === null) return false;
  return (JSON.parse(m.asked) as string[]).every((q) => {
    if (q[0] === 'k') {
      const role = (JSON.parse(q.slice(1)) as [string, unknown])[0];
      return kitQuestion(role, cat.kits?.get(role)) === q;
    }
    return (q[0] === 'r' ? cat.roles : cat.templates).has(q.slice(2)) === (q[1] === '1');
  });
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
    return (this.find(name, hash, at) ?? this.run(name, source, hash, at, false)).outline;
  }

  /** The whole validation (problems and model), with its outline; kept among the WHOLE_KEPT. */
  whole(name: string | undefined, source: string, hash: string, at: CatalogueGen): { outline: TemplateOutline; validation: Validation } {
    const m = this.find(name ?? '', hash, at);
    // a memo without its whole validation holds its catalogue answers: validating again gives the same one (pure)
    if (!m) {
      const fresh = this.run(name ?? '', source, hash, at, true);
      return { outline: fresh.outline, validation: fresh.whole! };
    }
    if (!m.whole) this.keepWhole(m, this.validate(source, name === undefined ? { catalogue: at.catalogue } : { name, catalogue: at.catalogue }));
    else this.keepWhole(m, m.whole);
    return { outline: m.outline, validation: m.whole! };
  }

  /** A validator for the card under this look's catalogue, answering from the memo. */
  validator(at: CatalogueGen): typeof validateTemplate {
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

  private run(key: string, source: string, hash: string, at: CatalogueGen, keepWhole: boolean): Memo {
    const log: { asked: Asked[] | null } = { asked: [] };
    const catalogue: Catalogue = { roles: recording(at.catalogue.roles, 'roles', log), templates: recording(at.catalogue.templates, 'templates', log) };
    if (at.catalogue.kits) catalogue.kits = recordingKits(at.catalogue.kits, log);
    const v = this.validate(source, key === '' ? { catalogue } : { name: key, catalogue });
    const asked = log.asked && JSON.stringify(log.asked.map(encode));
    const m: Memo = { hash, gen: at.gen, asked, outline: outlineOf(v) };
    const list = (this.memos.get(key) ?? []).filter((x) => x.hash !== hash);
    list.unshift(m);
    for (const dropped of list.splice(key === '' ? UNNAMED : PER_NAME)) this.wholes.delete(dropped);
    this.memos.set(key, list);
    if (keepWhole) this.keepWhole(m, v);
    return m;
  }

  private keepWhole(m: Memo, v: Validation): void {
    m.whole = v;
    this.wholes.delete(m);
    this.wholes.add(m);
    if (this.wholes.size > WHOLE_KEPT) {
      const oldest = this.wholes.values().next().value!;
      this.wholes.delete(oldest);
      oldest.whole = undefined;
    }
  }
}
