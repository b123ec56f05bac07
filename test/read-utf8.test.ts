/**
 * The reader's size cap counts UTF-8 bytes without Node's Buffer (the page
 * bundles the same reader): the count must be Buffer.byteLength's, lone
 * surrogates included (each is written as U+FFFD, 3 bytes).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Length } from '../src/template/read.js';

describe('utf8Length', () => {
  it('equals Buffer.byteLength for any UTF-16 string, broken surrogates too', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => utf8Length(s) === Buffer.byteLength(s, 'utf8')),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'é', '€', '😀', '\ud800', '\udc00', '\udbff\udfff')), (parts) => {
        const s = parts.join('');
        return utf8Length(s) === Buffer.byteLength(s, 'utf8');
      }),
      { numRuns: 2000 },
    );
  });

  it('counts each width at its edge', () => {
    for (const s of ['\u007f', '\u0080', '\u07ff', '\u0800', '\uffff', '\ud800\udc00', '\ud800', '\udc00\ud800']) expect(utf8Length(s), JSON.stringify(s)).toBe(Buffer.byteLength(s));
  });
});
