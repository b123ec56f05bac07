/**
 * The validator's one door to the catalogue. Every name it checks against
 * the library (a node's role, the header's `base`, a role's kit) goes
 * through CatalogueLookups, which writes down each question and its answer.
 * The validation is pure, so those answers are all it depends on besides the
 * source and the name: under a catalogue that gives the same answers it is
 * the same, which is what lets a caller keep validations (refs in
 * validate.ts's Validation).
 */
import type { Catalogue } from './model.js';

/**
 * What one validation looked up in the catalogue and what it found. Plain
 * JSON; the records have no prototype, so a name such as `__proto__` is a key
 * like any other.
 */
export interface CatalogueRefs {
  /** each role name asked about: whether the library knows it */
  roles: Record<string, boolean>;
  /** each template name asked about (a header's `base`): whether the library holds it */
  templates: Record<string, boolean>;
  /** each role whose kit was asked for: the tools the kit grants, null when the role has no kit */
  kits: Record<string, string[] | null>;
  /**
   * A catalogue set was walked rather than asked name by name: the
   * validation depends on every name in it and holds only under the same
   * catalogue.
   */
  whole: boolean;
}

export function emptyRefs(): CatalogueRefs {
  return { roles: Object.create(null), templates: Object.create(null), kits: Object.create(null), whole: false };
}

/** The catalogue as the validator sees it: asked by name, each question recorded in `refs`. */
export class CatalogueLookups {
  readonly refs: CatalogueRefs = emptyRefs();

  constructor(private readonly catalogue: Catalogue) {}

  /** Whether the library knows role `name`. */
  hasRole(name: string): boolean {
    const known = this.catalogue.roles.has(name);
    this.refs.roles[name] = known;
    return known;
  }

  /** Whether the library holds template `name`. */
  hasTemplate(name: string): boolean {
    const held = this.catalogue.templates.has(name);
    this.refs.templates[name] = held;
    return held;
  }

  /** The tools role `role`'s kit grants; undefined when it has none (or the caller knows no kits). */
  kit(role: string): readonly string[] | undefined {
    const tools = this.catalogue.kits?.get(role);
    this.refs.kits[role] = tools === undefined ? null : [...tools];
    return tools;
  }

  /**
   * Every name of a set, for a rule that must look at all of them (none does
   * today): the validation then depends on the whole catalogue.
   */
  names(set: 'roles' | 'templates'): ReadonlySet<string> {
    this.refs.whole = true;
    return this.catalogue[set];
  }
}
