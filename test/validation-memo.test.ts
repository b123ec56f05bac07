// The validation memo keeps a validation while every ref it made (Validation.refs,
// src/template/lookups.ts) has the same answer in the catalogue; a validation
// that walked a whole set holds only under the same generation. Driven with a
// stand-in validator that asks what its source says and counts its calls.
import { describe, expect, test } from 'vitest';
import { type CatalogueGen, ValidationMemo, WHOLE_KEPT } from '../src/library/memos/validation-memo.js';
import { CatalogueLookups } from '../src/template/lookups.js';
import type { Catalogue } from '../src/template/model.js';
import { type Validation, validateTemplate } from '../src/template/validate.js';
import { sha256Hex } from '../src/library/disk/markers.js';
import { tpl } from './library-helpers.js';

/**
 * A validator whose source is a list of lookups, one per line: `role auditor`,
 * `template origin`, `kit worker`, `walk roles`. Valid when every role and
 * template it asks about is there.
 */
function standIn() {
  const calls: string[] = [];
  const validate = (source: string, options: { name?: string; catalogue: Catalogue }): Validation => {
    calls.push(source);
    const lookups = new CatalogueLookups(options.catalogue);
    let valid = true;
    for (const line of source.split('\n').filter(Boolean)) {
      const [what, name] = line.split(' ') as [string, string];
      if (what === 'role') valid = lookups.hasRole(name) && valid;
      else if (what === 'template') valid = lookups.hasTemplate(name) && valid;
      else if (what === 'kit') lookups.kit(name);
      else lookups.names(name as 'roles' | 'templates');
    }
    return { template: null, problems: [], valid, refs: lookups.refs };
  };
  return { calls, memo: new ValidationMemo(validate) };
}

/** A look at a library of these names: a generation token of its own, as a changed library would have. */
function look(roles: string[], templates: string[] = [], kits: Record<string, string[]> = {}): CatalogueGen {
  return { gen: {}, catalogue: { roles: new Set(roles), templates: new Set(templates), kits: new Map(Object.entries(kits)) } };
}

const SRC = 'role auditor\nrole worker\ntemplate origin\nkit worker\n';
const H = sha256Hex(SRC);

/** Whether the memo answers `SRC` validated as `t` under `at` without validating again. */
function held(s: ReturnType<typeof standIn>, at: CatalogueGen): boolean {
  const n = s.calls.length;
  s.memo.outlineOf('t', SRC, H, at);
  return s.calls.length === n;
}

describe('a memo holds exactly while its refs have the same answers', () => {
  test('other names changed, every ref answered the same: not validated again', () => {
    const s = standIn();
    expect(s.memo.outlineOf('t', SRC, H, look(['worker'], ['a'], { worker: ['x.read'] })).valid).toBe(false);
    expect(s.calls).toHaveLength(1);
    const other = look(['worker', 'reviewer', 'planner'], ['a', 'b', 'c'], { worker: ['x.read'], reviewer: ['y.write'] });
    expect(s.memo.outline('t', H, other)).toMatchObject({ valid: false });
    expect(held(s, other)).toBe(true);
    expect(s.memo.whole('t', SRC, H, other).validation.valid).toBe(false);
    expect(s.calls).toHaveLength(2); // whole() after outlineOf: the validation was not kept, the refs were
  });

  test.each([
    ['a role it asked about is added', look(['worker', 'auditor'], [], { worker: ['x.read', 'x.write'] })],
    ['a role it found is removed', look([], [], { worker: ['x.read', 'x.write'] })],
    ['a template it asked about is added', look(['worker'], ['origin'], { worker: ['x.read', 'x.write'] })],
    ["a kit's tools change", look(['worker'], [], { worker: ['x.read'] })],
    ["a kit's tools change order", look(['worker'], [], { worker: ['x.write', 'x.read'] })],
    ['a kit goes', look(['worker'], [])],
  ])('dropped when %s', (_why, changed) => {
    const s = standIn();
    s.memo.outlineOf('t', SRC, H, look(['worker'], [], { worker: ['x.read', 'x.write'] }));
    expect(s.memo.outline('t', H, changed)).toBeNull();
    expect(held(s, changed)).toBe(false);
    expect(held(s, changed)).toBe(true); // validated under the new names, the memo holds again
  });

  test('a kit that appears for a role recorded without one drops the memo', () => {
    const s = standIn();
    s.memo.outlineOf('t', SRC, H, look(['worker']));
    expect(held(s, look(['worker'], [], { worker: [] }))).toBe(false);
  });

  test('the answer follows the catalogue: added role, valid; removed again, invalid', () => {
    const s = standIn();
    const at = (roles: string[]) => look(roles, ['origin']);
    expect(s.memo.outlineOf('t', SRC, H, at(['worker'])).valid).toBe(false);
    expect(s.memo.outlineOf('t', SRC, H, at(['worker', 'auditor'])).valid).toBe(true);
    expect(s.memo.outlineOf('t', SRC, H, at(['worker'])).valid).toBe(false);
    expect(s.calls).toHaveLength(3);
  });

  test('a role named __proto__ is a ref like any other', () => {
    const s = standIn();
    const src = 'role __proto__\n';
    s.memo.outlineOf('t', src, sha256Hex(src), look([]));
    expect(s.memo.outline('t', sha256Hex(src), look(['other']))).not.toBeNull();
    expect(s.memo.outline('t', sha256Hex(src), look(['__proto__']))).toBeNull();
  });
});

describe('generations', () => {
  test('under the generation it was proven under, the memo holds without asking the catalogue', () => {
    const s = standIn();
    const at = look(['worker']);
    s.memo.outlineOf('t', SRC, H, at);
    let asked = 0;
    const roles = at.catalogue.roles;
    const has = (r: string) => {
      asked++;
      return roles.has(r);
    };
    const counted: CatalogueGen = { gen: at.gen, catalogue: { ...at.catalogue, roles: { has } as ReadonlySet<string> } };
    expect(held(s, counted)).toBe(true);
    expect(asked).toBe(0);
  });

  test('a validation that walked a whole set holds only under the same generation', () => {
    const s = standIn();
    const src = 'role worker\nwalk roles\n';
    const h = sha256Hex(src);
    const first = look(['worker']);
    s.memo.outlineOf('t', src, h, first);
    expect(s.memo.outline('t', h, first)).not.toBeNull();
    // the same names under a new generation: every ref agrees, but the walk saw the whole set
    const again = look(['worker']);
    expect(s.memo.outline('t', h, again)).toBeNull();
    s.memo.outlineOf('t', src, h, again);
    expect(s.calls).toHaveLength(2);
    expect(s.memo.outline('t', h, again)).not.toBeNull();
  });
});

describe('what is kept', () => {
  test('whole() keeps the validation it made; the card validator answers from it under the look that made it', () => {
    const s = standIn();
    const at = look(['worker', 'auditor'], ['origin']);
    const v = s.memo.whole('t', SRC, H, at).validation;
    expect(s.memo.whole('t', SRC, H, at).validation).toBe(v);
    expect(s.memo.validator(at)(SRC, { name: 't', catalogue: at.catalogue })).toBe(v);
    expect(s.calls).toHaveLength(1);
    // another catalogue object is not this look's: validated as asked, not memoised
    s.memo.validator(at)(SRC, { name: 't', catalogue: look(['worker']).catalogue });
    expect(s.calls).toHaveLength(2);
  });

  test(`only the ${WHOLE_KEPT} most recent whole validations are kept; the others keep their outline`, () => {
    const s = standIn();
    const at = look(['worker']);
    const srcs = Array.from({ length: WHOLE_KEPT + 1 }, (_, i) => `role worker\ntemplate t${i}\n`);
    for (const [i, src] of srcs.entries()) s.memo.whole(`t${i}`, src, sha256Hex(src), at);
    expect(s.calls).toHaveLength(WHOLE_KEPT + 1);
    expect(s.memo.outline('t0', sha256Hex(srcs[0]!), at)).not.toBeNull();
    s.memo.whole(`t${WHOLE_KEPT}`, srcs[WHOLE_KEPT]!, sha256Hex(srcs[WHOLE_KEPT]!), at);
    expect(s.calls).toHaveLength(WHOLE_KEPT + 1);
    s.memo.whole('t0', srcs[0]!, sha256Hex(srcs[0]!), at);
    expect(s.calls).toHaveLength(WHOLE_KEPT + 2);
  });

  test('three versions of a name are kept, and a name gone from the catalogue is forgotten', () => {
    const s = standIn();
    const at = look(['worker']);
    const v = (i: number) => `role worker\ntemplate v${i}\n`;
    for (let i = 0; i < 4; i++) s.memo.outlineOf('t', v(i), sha256Hex(v(i)), at);
    expect([0, 1, 2, 3].map((i) => s.memo.outline('t', sha256Hex(v(i)), at) !== null)).toEqual([false, true, true, true]);
    s.memo.prune(new Set(['other']));
    expect(s.memo.outline('t', sha256Hex(v(3)), at)).toBeNull();
  });

  test('with the real validator: a memo proven under one look is reused under another that agrees', () => {
    let calls = 0;
    const memo = new ValidationMemo((src, o) => {
      calls++;
      return validateTemplate(src, o);
    });
    const src = tpl('needs', 'needs an auditor', 'auditor');
    const h = sha256Hex(src);
    expect(memo.outlineOf('needs', src, h, look(['worker'], ['needs'])).valid).toBe(false);
    expect(memo.outlineOf('needs', src, h, look(['worker', 'planner'], ['needs', 'extra'])).valid).toBe(false);
    expect(calls).toBe(1);
    expect(memo.outlineOf('needs', src, h, look(['worker', 'auditor'], ['needs'])).valid).toBe(true);
    expect(calls).toBe(2);
  });
});
