import { describe, expect, test } from 'vitest';
import { threeWayMerge } from '../src/http/three-way.js';

const base = 'a: 1\nb: 2\nc: 3\nd: 4\n';

describe('threeWayMerge', () => {
  test('changes on different lines merge cleanly', () => {
    const copy = 'a: 1\nb: 20\nc: 3\nd: 4\n';
    const shipped = 'a: 1\nb: 2\nc: 3\nd: 40\n';
    expect(threeWayMerge(copy, base, shipped)).toEqual({ merged: 'a: 1\nb: 20\nc: 3\nd: 40\n', conflicts: 0 });
  });

  test('the same change on both sides is no conflict', () => {
    const both = 'a: 1\nb: 9\nc: 3\nd: 4\n';
    expect(threeWayMerge(both, base, both)).toEqual({ merged: both, conflicts: 0 });
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

  test('a last line without its newline still leaves every marker on its own line', () => {
    const { merged, conflicts } = threeWayMerge('x: copy', 'x: base', 'x: shipped');
    expect(conflicts).toBe(1);
    expect(merged).toBe('<<<<<<< copy\nx: copy\n||||||| base\nx: base\n=======\nx: shipped\n>>>>>>> shipped\n');
  });
});
