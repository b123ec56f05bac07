// A validation says what it looked up in the catalogue and what it found
// (Validation.refs, src/template/lookups.ts): the names it depended on, so a
// caller can tell when a kept validation still holds.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CatalogueLookups, type CatalogueRefs } from '../src/template/lookups.js';
import type { Catalogue } from '../src/template/model.js';
import { validateTemplate } from '../src/template/validate.js';
import { QUICK, RESEARCH, TICKET_CLOSE } from './fixtures/templates/helpers.js';

/** One model node playing `role`, on a header whose `base` is `origin`. */
const AUDIT = `template:
  name: audit
  purpose: audit the workspace
  base: origin
  entry: check
  inlet: start
version: 1
nodes:
  check: { type: model, role: auditor, profile: read_only }
`;

/** No role, no base: nothing to ask the catalogue. */
const NO_REFS = `template:
  name: gate
  purpose: ask a person
  entry: ask
  inlet: in
version: 1
nodes:
  ask: { type: builtin, builtin: human_gate, prompt: go on? }
`;

const catalogue = (roles: string[], templates: string[], kits?: Record<string, string[]>): Catalogue => ({
  roles: new Set(roles),
  templates: new Set(templates),
  ...(kits ? { kits: new Map(Object.entries(kits)) } : {}),
});

const plain = (refs: CatalogueRefs) => JSON.parse(JSON.stringify(refs)) as unknown;

describe('refs: what a validation asked the catalogue', () => {
  test('a known role and an unknown base are recorded with their answers', () => {
    const v = validateTemplate(AUDIT, { name: 'audit', catalogue: catalogue(['auditor'], ['research']) });
    expect(v.problems.map((p) => p.code)).toEqual(['base.unknown']);
    expect(plain(v.refs)).toEqual({ roles: { auditor: true }, templates: { origin: false }, kits: { auditor: null }, whole: false });
  });

  test("a role's kit is recorded with the tools it grants", () => {
    const v = validateTemplate(AUDIT, { catalogue: catalogue(['auditor'], ['origin'], { auditor: ['tickets.read'] }) });
    expect(v.refs.kits).toEqual({ auditor: ['tickets.read'] });
    expect(v.refs.templates).toEqual({ origin: true });
    expect(v.template?.nodes[0]?.touches).toContain('tickets.read');
  });

  test('a template that names no role and no base, and a source that does not parse, ask nothing', () => {
    const empty = { roles: {}, templates: {}, kits: {}, whole: false };
    const cat = catalogue(['auditor'], ['origin'], { auditor: ['tickets.read'] });
    const v = validateTemplate(NO_REFS, { catalogue: cat });
    expect(v.problems).toEqual([]);
    expect(plain(v.refs)).toEqual(empty);
    expect(plain(validateTemplate('nodes: [a, {b: ]\n', { catalogue: cat }).refs)).toEqual(empty);
  });

  test('a role named __proto__ is a key like any other', () => {
    const v = validateTemplate(AUDIT.replace('role: auditor', 'role: __proto__'), { catalogue: catalogue([], []) });
    expect(Object.keys(v.refs.roles)).toEqual(['__proto__']);
    expect(JSON.stringify(v.refs.roles)).toBe('{"__proto__":false}');
  });

  test('walking a set marks the refs whole', () => {
    const lookups = new CatalogueLookups(catalogue(['auditor'], []));
    expect(lookups.refs.whole).toBe(false);
    expect([...lookups.names('roles')]).toEqual(['auditor']);
    expect(lookups.refs.whole).toBe(true);
  });
});

describe('refs are all a validation depends on', () => {
  const sources = [AUDIT, NO_REFS, QUICK, RESEARCH, TICKET_CLOSE];
  const ROLES = ['auditor', 'worker', 'ticket_intake', 'ticket_close', 'researcher', 'verifier', 'lead'];
  const TEMPLATES = ['origin', 'research', 'ticket-completion', 'quick-fix'];
  const TOOLS = ['tickets.read', 'tickets.update', 'workspace.read', 'workspace.write'];
  const names = fc.record({
    roles: fc.subarray(ROLES),
    templates: fc.subarray(TEMPLATES),
    kits: fc.dictionary(fc.constantFrom(...ROLES), fc.subarray(TOOLS)),
  });

  /** `noise` wherever `refs` say nothing, and exactly what `refs` say where they speak. */
  function agreeing(refs: CatalogueRefs, noise: { roles: string[]; templates: string[]; kits: Record<string, string[]> }): Catalogue {
    const roles = new Set(noise.roles);
    const templates = new Set(noise.templates);
    const kits = new Map(Object.entries(noise.kits));
    for (const [r, known] of Object.entries(refs.roles)) known ? roles.add(r) : roles.delete(r);
    for (const [t, held] of Object.entries(refs.templates)) held ? templates.add(t) : templates.delete(t);
    for (const [r, tools] of Object.entries(refs.kits)) tools === null ? kits.delete(r) : kits.set(r, tools);
    return { roles, templates, kits };
  }

  test('under any catalogue that agrees on every ref, validating again gives the same problems', () => {
    fc.assert(
      fc.property(fc.constantFrom(...sources), names, names, (source, first, noise) => {
        const a = validateTemplate(source, { catalogue: catalogue(first.roles, first.templates, first.kits) });
        expect(a.refs.whole).toBe(false);
        const b = validateTemplate(source, { catalogue: agreeing(a.refs, noise) });
        expect(b.problems).toEqual(a.problems);
        expect(b.template).toEqual(a.template);
        expect(plain(b.refs)).toEqual(plain(a.refs));
      }),
      { numRuns: 60 },
    );
  });
});
