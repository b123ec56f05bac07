// Folding as data, and the spawn-time guard, as properties (docs/format.md,
// Inputs at launch): for random values — strings carrying {{…}} and colons,
// unicode, huge numbers, lists — folding never throws, is one pass, and a
// folded prompt never holds a placeholder or a directive fence the
// template's own text does not, unless the guard refuses it. Seeded and
// short, so it runs in npm test.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { addedMachinery, foldText, renderValue } from '../src/template/fold.js';
import { LAUNCH_CODES, previewLaunch } from '../src/template/launch.js';
import { PLACEHOLDER } from '../src/template/nodes.js';
import { kinds, modelOf, shippedModel } from './launch-fixtures.js';

const RUNS = { seed: 20261130, numRuns: 300 };
const NAMES = ['a', 'b', 'c'] as const;

const hostileText = fc.oneof(
  fc.constantFrom('{{inputs.a}}', '{{inputs.b}}', '{{ inputs.c }}', '{{inputs.zz}}', '{{run.id}}', '{{', '}}', '{', '}', ':', '::', ':::', 'inputs.', 'inputs.b', ' ', '\n', '$&', "$'"),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: fc.constantFrom('{', '}', ':', 'i', 'n', 'p', 'u', 't', 's', '.', 'a', 'b', ' '), maxLength: 12 }),
);
const hostileString = fc.array(hostileText, { maxLength: 5 }).map((xs) => xs.join(''));
const hugeNumber = fc.oneof(fc.double({ noNaN: true }), fc.bigInt().map(Number), fc.constantFrom(2 ** 53 + 1, -0, 1e308, 5e-324));
const scalar = fc.oneof(hostileString, hugeNumber, fc.boolean());
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 4 }));

/** A prompt: literal text (braces, colons and all) around placeholders, with spaces inside braces sometimes. */
const template = fc
  .array(fc.oneof(hostileText, fc.constantFrom(...NAMES).map((n) => `{{inputs.${n}}}`)), { maxLength: 8 })
  .map((xs) => xs.join(''));

/**
 * The machinery a text holds, counted by text, as this test reads it (not
 * the guard's own parser): `{{…}}` with no brace inside, and runs of three
 * colons or more.
 */
function machinery(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/\{\{[^{}]*\}\}|:{3,}/g)) {
    const k = m[0].startsWith(':') ? ':::' : m[0];
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

describe('folding as data', () => {
  test('one pass: each placeholder with a value replaced once, the result never read again', () => {
    fc.assert(
      fc.property(template, fc.tuple(value, value, value), (text, vs) => {
        const texts = new Map<string, string>(NAMES.map((n, i) => [n, renderValue(vs[i])]));
        expect(foldText(text, texts).text).toBe(text.replace(PLACEHOLDER, (m, name: string) => texts.get(name) ?? m));
      }),
      RUNS,
    );
  });

  test('a folded prompt never gains a placeholder or a fence without the guard refusing it', () => {
    fc.assert(
      fc.property(template, fc.tuple(value, value, value), (text, vs) => {
        const texts = new Map<string, string>(NAMES.map((n, i) => [n, renderValue(vs[i])]));
        const folded = foldText(text, texts);
        const refused = addedMachinery(folded);
        if (refused !== null) {
          // it names only inputs that were folded in
          for (const name of refused) expect(folded.spans.some((s) => s.input === name)).toBe(true);
          return;
        }
        // the template's own text: every value a plain letter, which forms nothing
        const own = foldText(text, new Map(NAMES.map((n) => [n, 'x'])));
        expect(machinery(folded.text)).toEqual(machinery(own.text));
      }),
      RUNS,
    );
  });

  test('a value holding a placeholder or a fence is always refused, whatever surrounds it', () => {
    const machine = fc.constantFrom('{{run.secret}}', '{{inputs.a}}', '{{}}', ':::', '::::note');
    fc.assert(
      fc.property(template, hostileString, machine, hostileString, (text, before, m, after) => {
        const folded = foldText(`${text}{{inputs.a}}`, new Map([['a', `${before}${m}${after}`]]));
        expect(addedMachinery(folded)).toEqual(['a']);
      }),
      RUNS,
    );
  });

  test('a launch preview never throws, and an ok run keeps no {{inputs.…}} but its marked holes', () => {
    const models = [modelOf(kinds().replace(', one_of: [fix, explain]', '')), shippedModel('quick-fix'), shippedModel('batch')];
    const inputs = fc.record(
      { goal: fc.oneof(value, fc.jsonValue()), notes: value, count: hugeNumber, tickets: fc.array(scalar, { maxLength: 5 }), budget: hugeNumber },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.constantFrom(...models), inputs, (model, given) => {
        const r = previewLaunch(model, given);
        for (const p of r.problems) expect((LAUNCH_CODES as readonly string[]).includes(p.code)).toBe(true);
        expect(r.ok).toBe(!r.problems.some((p) => p.severity === 'error'));
        if (!r.ok) return;
        for (const run of r.runs) {
          for (const n of run.nodes) {
            if (n.prompt === null) continue;
            for (const m of n.prompt.matchAll(PLACEHOLDER)) expect(n.holes).toContain(m[1]);
          }
        }
      }),
      RUNS,
    );
  });
});
