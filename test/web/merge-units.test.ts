/** The rebase resolver and the header diff's lists, without a browser (src/web/merge-resolve.ts, merge-changes.ts). */
import { describe, expect, it } from 'vitest';
import { keyedChanges, wordChanges } from '../../src/web/merge-changes.js';
import { bothSides, contextOf, freshResolutions, type Resolution, resolve, unresolved } from '../../src/web/merge-resolve.js';
import type { MergePart } from '../../src/schema/templates.js';

const parts: MergePart[] = [
  { kind: 'clean', text: 'a: 1\nb: 2\nc: 3\n' },
  { kind: 'conflict', copy: 'd: mine\n', base: 'd: 4\n', theirs: 'd: shipped\n' },
  { kind: 'clean', text: 'e: 5\nf: 6\ng: 7\n' },
  { kind: 'conflict', copy: 'h: mine', base: 'h: 8', theirs: 'h: shipped' },
];

describe('rebase resolution', () => {
  it('has no result until every conflict has a choice', () => {
    const res = freshResolutions(parts);
    expect(unresolved(res)).toBe(2);
    expect(resolve(parts, res)).toBeNull();
    res[0]!.choice = 'mine';
    expect(resolve(parts, res)).toBeNull();
  });

  it('joins the clean text with the chosen side of each conflict, no markers', () => {
    const res: Resolution[] = [
      { choice: 'mine', edit: '' },
      { choice: 'shipped', edit: '' },
    ];
    expect(resolve(parts, res)).toBe('a: 1\nb: 2\nc: 3\nd: mine\ne: 5\nf: 6\ng: 7\nh: shipped');
  });

  it('edit both starts from mine then shipped; an edit keeps its next line apart', () => {
    expect(bothSides({ kind: 'conflict', copy: 'x', base: '', theirs: 'y\n' })).toBe('x\ny\n');
    const res = freshResolutions(parts);
    expect(res[0]!.edit).toBe('d: mine\nd: shipped\n');
    res[0] = { choice: 'edit', edit: 'd: both' };
    res[1] = { choice: 'edit', edit: 'h: last' };
    // no newline added to the last part: the file ends as the operator wrote it
    expect(resolve(parts, res)).toBe('a: 1\nb: 2\nc: 3\nd: both\ne: 5\nf: 6\ng: 7\nh: last');
  });

  it('shows two clean lines each side of a conflict', () => {
    expect(contextOf(parts, 0)).toEqual({ before: 'b: 2\nc: 3', after: 'e: 5\nf: 6' });
    expect(contextOf(parts, 1)).toEqual({ before: 'f: 6\ng: 7', after: '' });
  });
});

describe('header diff as lists', () => {
  it('inputs by name: added, removed, changed part by part', () => {
    const before = [
      { name: 'tickets', required: true, type: 'list' },
      { name: 'notes', required: false, type: 'string' },
    ];
    const after = [
      { name: 'tickets', required: false, type: 'list' },
      { name: 'branch', required: true, type: 'string' },
    ];
    expect(keyedChanges(before, after, 'name')).toEqual([
      { kind: 'added', key: 'branch', item: after[1] },
      { kind: 'removed', key: 'notes', item: before[1] },
      { kind: 'changed', key: 'tickets', parts: [{ part: 'required', before: true, after: false }] },
    ]);
  });

  it('roles by node; a value that is not such a list is left to before → after', () => {
    expect(keyedChanges([{ role: 'worker', node: 'work' }], [{ role: 'reviewer', node: 'work' }], 'node')).toEqual([
      { kind: 'changed', key: 'work', parts: [{ part: 'role', before: 'worker', after: 'reviewer' }] },
    ]);
    expect(keyedChanges(null, [{ role: 'worker', node: 'work' }], 'node')).toEqual([{ kind: 'added', key: 'work', item: { role: 'worker', node: 'work' } }]);
    expect(keyedChanges('x', [], 'name')).toBeNull();
  });

  it('lists of words as added and removed', () => {
    expect(wordChanges(['done', 'failed'], ['done', 'passed'])).toEqual({ added: ['passed'], removed: ['failed'] });
    expect(wordChanges({ a: 1 }, [])).toBeNull();
  });
});
