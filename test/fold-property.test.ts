// Folding as data, as a property (docs/format.md, Inputs at launch): for
// random values — strings carrying {{…}}, unicode, huge numbers, lists —
// folding never throws, is one pass, and never leaves a {{inputs.…}} in a
// prompt that it did not warn about: every placeholder of the template is
// replaced, so one left in the folded text came from a value. Seeded and
// short, so it runs in npm test.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { foldText, looksLikeReference, renderValue } from '../src/template/fold.js';
import { LAUNCH_CODES, previewLaunch } from '../src/template/launch.js';
import { PLACEHOLDER } from '../src/template/nodes.js';
import { kinds, modelOf, shippedModel } from './launch-fixtures.js';

const RUNS = { seed: 20261130, numRuns: 200 };
const NAMES = ['a', 'b', 'c'] as const;

const hostileText = fc.oneof(
  fc.constantFrom('{{inputs.a}}', '{{inputs.b}}', '{{ inputs.c }}', '{{inputs.zz}}', '{{run.id}}', '{{', '}}', '{', '}', 'inputs.', 'inputs.b', ' ', '\n', '$&', "$'"),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: fc.constantFrom('{', '}', 'i', 'n', 'p', 'u', 't', 's', '.', 'a', 'b', ' '), maxLength: 12 }),
);
const hostileString = fc.array(hostileText, { maxLength: 5 }).map((xs) => xs.join(''));
const hugeNumber = fc.oneof(fc.double({ noNaN: true }), fc.bigInt().map(Number), fc.constantFrom(2 ** 53 + 1, -0, 1e308, 5e-324));
const scalar = fc.oneof(hostileString, hugeNumber, fc.boolean());
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 4 }));

/** A prompt: literal text (braces and all) around placeholders, with spaces inside braces sometimes. */
const template = fc
  .array(fc.oneof(hostileText, fc.constantFrom(...NAMES).map((n) => `{{inputs.${n}}}`)), { maxLength: 8 })
  .map((xs) => xs.join(''));

const placeholders = (text: string) => [...text.matchAll(PLACEHOLDER)].map((m) => ({ start: m.index, end: m.index + m[0].length }));

describe('folding as data', () => {
  test('one pass; every {{inputs.…}} left in the text is inside a warned value or flagged as formed with the braces around it', () => {
    fc.assert(
      fc.property(template, fc.tuple(value, value, value), (text, vs) => {
        const texts = new Map<string, string>(NAMES.map((n, i) => [n, renderValue(vs[i])]));
        const folded = foldText(text, texts);
        // one pass: the same as replacing each match once, with the result never read again
        expect(folded.text).toBe(text.replace(PLACEHOLDER, (m, name: string) => texts.get(name) ?? m));
        for (const p of placeholders(folded.text)) {
          const inside = folded.spans.find((s) => s.start <= p.start && p.end <= s.end);
          if (inside) expect(looksLikeReference(texts.get(inside.input) ?? '')).toBe(true);
          else {
            // not in the template's literal text: the template's own were all replaced (names a, b, c);
            // one naming no input was left as written, like {{inputs.zz}}
            const overlapping = folded.spans.filter((s) => s.start < p.end && p.start < s.end);
            const kept = overlapping.length === 0;
            if (kept) expect(folded.text.slice(p.start, p.end)).not.toMatch(/inputs\.\s*[abc]\s*\}\}$/);
            else expect(overlapping.some((s) => folded.straddles.includes(s.input))).toBe(true);
          }
        }
      }),
      RUNS,
    );
  });

  test('a launch preview never throws, and an ok run has no unwarned {{inputs.…}} in any prompt', () => {
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
        const warned = r.problems.some((p) => p.code === 'input.looks_like_reference');
        for (const run of r.runs) {
          for (const n of run.nodes) if (n.prompt !== null && !warned) expect(placeholders(n.prompt)).toEqual([]);
        }
      }),
      RUNS,
    );
  });
});
