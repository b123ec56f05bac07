// Random damage to real templates never makes the validator throw, and every
// problem it returns is well formed (docs/format.md, Reading; docs/problems.md).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isProblemCode, PROBLEM_CODES, type Problem } from '../src/template/problems.js';
import { readSource } from '../src/template/read.js';
import { validateTemplate, walkDocument } from '../src/template/validate.js';
import { Walk } from '../src/template/walk.js';
import { QUICK, RESEARCH, shipped, shippedCatalogue, TICKET_CLOSE } from './fixtures/templates/helpers.js';

const corpus = shipped().length ? shipped().map((t) => t.source) : [QUICK, RESEARCH, TICKET_CLOSE];
const catalogue = shippedCatalogue().roles.size ? shippedCatalogue() : { roles: new Set(['ticket_intake', 'worker', 'ticket_close']), templates: new Set<string>() };

type Mutation = (s: string) => string;
const lines = (s: string) => s.split('\n');

/** One random edit of the kinds an operator's slip makes. */
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.nat().map((n): Mutation => (s) => {
    const l = lines(s);
    l.splice(n % l.length, 1);
    return l.join('\n');
  }),
  fc.nat().map((n): Mutation => (s) => {
    const l = lines(s);
    const i = n % l.length;
    l.splice(i, 0, l[i] ?? '');
    return l.join('\n');
  }),
  fc.nat().map((n): Mutation => (s) => {
    if (s.length < 2) return s;
    const i = n % (s.length - 1);
    return s.slice(0, i) + s[i + 1] + s[i] + s.slice(i + 2);
  }),
  fc.tuple(fc.nat(), fc.constantFrom('{', '}', '[', ']', ':', '-', '&a', '*a', '!x', '"', "'", '#', '|', '>', '\n', '  ', '?', ',', 'null', '~', '---\n', '{{inputs.', '.', 'x'))
    .map(([n, junk]): Mutation => (s) => {
      const i = n % (s.length + 1);
      return s.slice(0, i) + junk + s.slice(i);
    }),
  fc.tuple(fc.nat(), fc.integer({ min: -4, max: 4 })).map(([n, d]): Mutation => (s) => {
    const l = lines(s);
    const i = n % l.length;
    const line = l[i] ?? '';
    l[i] = d >= 0 ? ' '.repeat(d) + line : line.replace(new RegExp(`^ {0,${-d}}`), '');
    return l.join('\n');
  }),
);

const damaged = fc.tuple(fc.nat(corpus.length - 1), fc.array(mutation, { minLength: 1, maxLength: 4 })).map(([i, ms]) => ms.reduce((s, m) => m(s), corpus[i] ?? ''));

/** RFC 6901: '' or '/'-separated tokens where '~' only starts ~0 or ~1. */
const isPointer = (p: string) => p === '' || (p.startsWith('/') && !/~(?![01])/.test(p));

function checkProblems(problems: readonly Problem[]): void {
  let last = -1;
  for (const p of problems) {
    expect(isProblemCode(p.code), p.code).toBe(true);
    expect(p.severity).toBe(PROBLEM_CODES[p.code].severity);
    expect(p.message.trim().length).toBeGreaterThan(0);
    expect(isPointer(p.path), p.path).toBe(true);
    if (p.line !== undefined) {
      expect(p.line).toBeGreaterThanOrEqual(1);
      expect(p.column).toBeGreaterThanOrEqual(1);
      const k = p.line * 1e6 + (p.column ?? 0);
      expect(k).toBeGreaterThanOrEqual(last);
      last = k;
    }
  }
}

describe('the validator under random damage', () => {
  test('the walk itself never throws (a throw here is a validator bug)', () => {
    fc.assert(
      fc.property(damaged, (source) => {
        const read = readSource(source);
        if (!read.doc) return;
        walkDocument(new Walk(read.doc, read.lineCounter, read.aliasTargets), { catalogue });
      }),
      { numRuns: 400 },
    );
  });

  test('every problem is well formed, in source order, and validity follows the errors', () => {
    fc.assert(
      fc.property(damaged, fc.option(fc.constantFrom('quick-fix', 'research', 'x')), (source, name) => {
        const r = validateTemplate(source, name === null ? { catalogue } : { catalogue, name });
        checkProblems(r.problems);
        expect(r.valid).toBe(!r.problems.some((p) => p.severity === 'error'));
        expect(r.problems.some((p) => p.message.startsWith('the validator failed'))).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  // the card reuses a named validation's model for its diff (template/card.ts): a name may add
  // problems (name.mismatch), never change the typed view
  test('the model is the same whatever name the template is checked as', () => {
    fc.assert(
      fc.property(damaged, fc.constantFrom('quick-fix', 'research', 'x'), (source, name) => {
        expect(validateTemplate(source, { catalogue, name }).template).toEqual(validateTemplate(source, { catalogue }).template);
      }),
      { numRuns: 200 },
    );
  });

  test('arbitrary text never throws either', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (source) => {
        checkProblems(validateTemplate(source, { catalogue }).problems);
      }),
      { numRuns: 300 },
    );
  });
});
