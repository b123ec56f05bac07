/**
 * The reader's size cap counts UTF-8 bytes without Node's Buffer (the page
 * bundles the same reader): the count must be Buffer.byteLength's, lone
 * surrogates included (each is written as U+FFFD, 3 bytes).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIMITS, readSource, utf8Length } from '../src/template/read.js';

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

describe('the size cap in UTF-8 bytes', () => {
  // three bytes per code unit: the widest a source can be for its length
  const euros = '€'.repeat(Math.floor((LIMITS.sizeBytes - 2) / 3));
  const codes = (s: string) => readSource(s).problems.map((p) => p.code);
  it('refuses one byte over the cap, counting a source short in code units', () => {
    const over = `#  ${euros}`;
    expect(Buffer.byteLength(over)).toBe(LIMITS.sizeBytes + 1);
    expect(codes(over)).toEqual(['limit.size']);
  });
  it('reads a source exactly at the cap', () => {
    const at = `# ${euros}`;
    expect(Buffer.byteLength(at)).toBe(LIMITS.sizeBytes);
    expect(codes(at)).not.toContain('limit.size');
  });
});
