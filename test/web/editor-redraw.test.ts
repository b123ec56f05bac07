/**
 * The editor draws the problems again only when what it would draw differs
 * from what it shows: the squiggles CodeMirror has mapped through the edits
 * since the last check, and the problems list.
 */
import { setDiagnostics } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { describe, expect, it } from 'vitest';
import { showsExactly, toDiagnostics } from '../../src/web/editor-lint.js';
import { sameProblems } from '../../src/web/format.js';
import type { Problem } from '../../src/schema/errors.js';

const SOURCE = ['nodes:', '  a:', '    type: model', '    profile: everything', ''].join('\n');
const unknown = (line: number, column: number, name = 'everything'): Problem => ({
  code: 'model.profile_unknown',
  severity: 'error',
  message: `profile ${name} is not one of the profiles`,
  path: '/nodes/a/profile',
  line,
  column,
});

/** A state showing `problems`, as the editor leaves it after a check. */
function showing(doc: string, problems: Problem[]): EditorState {
  const state = EditorState.create({ doc });
  return state.update(setDiagnostics(state, toDiagnostics(state.doc, problems))).state;
}

describe('drawing the problems again', () => {
  it('an edit on another line: the mapped squiggle is the new check’s, nothing to draw', () => {
    const before = showing(SOURCE, [unknown(4, 14)]);
    const after = before.update({ changes: { from: 0, insert: '# a comment\n' } }).state;
    expect(showsExactly(after, toDiagnostics(after.doc, [unknown(5, 14)]))).toBe(true);
  });

  it('an edit inside the marked word: the squiggle must be drawn again', () => {
    const before = showing(SOURCE, [unknown(4, 14)]);
    const at = SOURCE.indexOf('everything') + 'every'.length;
    const after = before.update({ changes: { from: at, insert: 'x' } }).state;
    // CodeMirror stretched the old squiggle; the new check marks the new word with a new message
    expect(showsExactly(after, toDiagnostics(after.doc, [unknown(4, 14, 'everyxthing')]))).toBe(false);
  });

  it('a problem more, fewer or moved is drawn; none before and none now is not', () => {
    const before = showing(SOURCE, [unknown(4, 14)]);
    expect(showsExactly(before, toDiagnostics(before.doc, []))).toBe(false);
    expect(showsExactly(before, toDiagnostics(before.doc, [unknown(4, 14), { ...unknown(3, 11), severity: 'warning' }]))).toBe(false);
    expect(showsExactly(before, toDiagnostics(before.doc, [unknown(3, 11)]))).toBe(false);
    const clean = showing(SOURCE, []);
    expect(showsExactly(clean, [])).toBe(true);
    expect(showsExactly(clean, toDiagnostics(clean.doc, [unknown(4, 14)]))).toBe(false);
  });

  it('the list is drawn again when any field it shows differs', () => {
    const p = unknown(4, 14);
    expect(sameProblems([p], [{ ...p }])).toBe(true);
    expect(sameProblems([], [])).toBe(true);
    for (const q of [{ ...p, line: 5 }, { ...p, column: 2 }, { ...p, message: 'other' }, { ...p, severity: 'warning' as const }, { ...p, code: 'model.role_unknown' as const }]) {
      expect(sameProblems([p], [q])).toBe(false);
    }
    expect(sameProblems([p], [p, p])).toBe(false);
  });
});
