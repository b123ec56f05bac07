import { describe, expect, test } from 'vitest';
import { threeWayMerge } from '../src/library/templates/three-way.js';

const base = 'a: 1\nb: 2\nc: 3\nd: 4\n';

describe('threeWayMerge', () => {
  test('changes on different lines merge cleanly', () => {
    const copy = 'a: 1\nb: 20\nc: 3\nd: 4\n';
    const shipped = 'a: 1\nb: 2\nc: 3\nd: 40\n';
    expect(threeWayMerge(copy, base, shipped)).toEqual({
      merged: 'a: 1\nb: 20\nc: 3\nd: 40\n',
      conflicts: 0,
      parts: [{ kind: 'clean', text: 'a: 1\nb: 20\nc: 3\nd: 40\n' }],
    });
  });

  test('the same change on both sides is no conflict', () => {
    const both = 'a: 1\nb: 9\nc: 3\nd: 4\n';
    expect(threeWayMerge(both, base, both)).toEqual({ merged: both, conflicts: 0, parts: [{ kind: 'clean', text: both }] });
  });

  test('a conflict is written with git diff3-style markers', () => {
    const copy = 'a: 1\nb: copy\nc: 3\nd: 4\n';
    const shipped = 'a: 1\nb: shipped\nc: 3\nd: 4\n';
    const { merged, conflicts } = threeWayMerge(copy, base, shipped);
    expect(conflicts).toBe(1);
    expect(merged).toBe(
      'a: 1\n<<<<<<< copy\nb: copy\n||||||| base\nb: 2\n=======\nb: shipped\n>>>>>>> shipped\nc: 3\nd: 4\n',
    );
  });

  test('parts give each conflict its three sides; clean text with one side per conflict is a merge without markers', () => {
    // changes on neighbouring lines are one conflict in diff3, so the shipped-only change sits two lines away
    const five = 'a: 1\nb: 2\nc: 3\nd: 4\ne: 5\n';
    const copy = 'a: copy\nb: 2\nc: 3\nd: 4\ne: copy\n';
    const shipped = 'a: shipped\nb: 2\nc: 30\nd: 4\ne: shipped\n';
    const { parts, conflicts } = threeWayMerge(copy, five, shipped);
    expect(conflicts).toBe(2);
    expect(parts).toEqual([
      { kind: 'conflict', copy: 'a: copy\n', base: 'a: 1\n', theirs: 'a: shipped\n' },
      { kind: 'clean', text: 'b: 2\nc: 30\nd: 4\n' },
      { kind: 'conflict', copy: 'e: copy\n', base: 'e: 5\n', theirs: 'e: shipped\n' },
    ]);
    const pick = (side: 'copy' | 'theirs') => parts.map((p) => (p.kind === 'clean' ? p.text : p[side])).join('');
    expect(pick('copy')).toBe('a: copy\nb: 2\nc: 30\nd: 4\ne: copy\n');
    expect(pick('theirs')).toBe(shipped);
  });

  test('a last line without its newline still leaves every marker on its own line', () => {
    const { merged, conflicts } = threeWayMerge('x: copy', 'x: base', 'x: shipped');
    expect(conflicts).toBe(1);
    expect(merged).toBe('<<<<<<< copy\nx: copy\n||||||| base\nx: base\n=======\nx: shipped\n>>>>>>> shipped\n');
  });
});
