/** The page's own three-way merge of two tabs' saves, and the YAML indentation after a line, without a browser (src/web/merge-three.ts, editor-indent.ts). */
import { describe, expect, it } from 'vitest';
import { yamlIndentAfter } from '../../src/web/editor-indent.js';
import { threeWayParts } from '../../src/web/merge-three.js';
import { freshResolutions, resolve } from '../../src/web/merge-resolve.js';

describe('threeWayParts', () => {
  const base = 'a: 1\nb: 2\nc: 3\nd: 4\n';
  it('lines changed on one side each merge cleanly, with no conflict', () => {
    const parts = threeWayParts('a: mine\nb: 2\nc: 3\nd: 4\n', base, 'a: 1\nb: 2\nc: 3\nd: theirs\n');
    expect(parts).toEqual([{ kind: 'clean', text: 'a: mine\nb: 2\nc: 3\nd: theirs\n' }]);
  });
  it('a line both changed is one conflict with its three sides; choosing mine keeps theirs elsewhere', () => {
    const parts = threeWayParts('a: 1\nb: mine\nc: 3\nd: 4\n', base, 'a: 1\nb: theirs\nc: 3\nd: 5\n');
    expect(parts.filter((p) => p.kind === 'conflict')).toEqual([{ kind: 'conflict', copy: 'b: mine\n', base: 'b: 2\n', theirs: 'b: theirs\n' }]);
    const res = freshResolutions(parts);
    res[0]!.choice = 'mine';
    expect(resolve(parts, res)).toBe('a: 1\nb: mine\nc: 3\nd: 5\n');
  });
  it('the same change on both sides is no conflict', () => {
    const both = 'a: 1\nb: same\nc: 3\nd: 4\n';
    expect(threeWayParts(both, base, both)).toEqual([{ kind: 'clean', text: both }]);
  });
});

describe('yamlIndentAfter', () => {
  it.each([
    ['nodes:', 2],
    ['  inputs:', 4],
    ['    - name: tickets', 6],
    ['    - DESK-1', 4],
    ['  - { from: work.done, to: gate.in }', 2],
    ['  - [a, b]', 2],
    ['    - build:', 8],
    ['  work: { type: model }', 2],
    ['    prompt: >-', 6],
    ['    prompt: |', 6],
    ['  writes: false  # a comment: not a key', 2],
  ])('after %j the next line is indented %i', (line, n) => {
    expect(yamlIndentAfter(line)).toBe(n);
  });
});
