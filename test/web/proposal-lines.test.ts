/**
 * What a proposal's save would drop of the operator's work (src/web/proposal-lines.ts):
 * the lines of the copy that the proposal does not keep and that are not the shipped
 * template's own; every line of a custom template is the operator's.
 */
import { describe, expect, it } from 'vitest';
import { operatorLinesLost } from '../../src/web/proposal-lines.js';

const shipped = 'template:\n  name: quick-fix\n  purpose: Fix it\nversion: 1\nnodes: {}\n';
const mine = 'template:\n  name: quick-fix\n  purpose: Our own purpose\n\n# tuned here\nversion: 1\nnodes: {}\n';

describe('operatorLinesLost', () => {
  it('names the edited lines the proposal drops, not the shipped ones or blank lines', () => {
    expect(operatorLinesLost(mine, shipped, shipped)).toEqual(['  purpose: Our own purpose', '# tuned here']);
  });

  it('is empty when the proposal keeps the edits', () => {
    expect(operatorLinesLost(mine, `${mine}# and more\n`, shipped)).toEqual([]);
  });

  it('counts every dropped line of a custom template (no shipped text)', () => {
    expect(operatorLinesLost('a: 1\nb: 2\n', 'a: 1\n', null)).toEqual(['b: 2']);
  });
});
