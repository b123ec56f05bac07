import type { Problem } from '../schema/errors.js';

/** `12:5`, or `—` for a problem with no position (a missing file-level key). */
export function position(p: Pick<Problem, 'line' | 'column'>): string {
  if (p.line == null) return '—';
  return p.column == null ? String(p.line) : `${p.line}:${p.column}`;
}

/** Problems sorted by line then column; those without a line go first (they concern the whole file). */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

/** The worst severity on each line, for the gutter marks. */
export function marksByLine(problems: readonly Problem[]): Map<number, 'error' | 'warning'> {
  const marks = new Map<number, 'error' | 'warning'>();
  for (const p of problems) {
    if (p.line == null) continue;
    if (marks.get(p.line) !== 'error') marks.set(p.line, p.severity);
  }
  return marks;
}

/** Whether two lists hold the same problems in the same order (what the problems list shows of each). */
export function sameProblems(a: readonly Problem[], b: readonly Problem[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return a.every((p, i) => {
    const q = b[i]!;
    return p.code === q.code && p.severity === q.severity && p.line === q.line && p.column === q.column && p.message === q.message && p.path === q.path;
  });
}

export function errorCount(problems: readonly Problem[]): number {
  return problems.filter((p) => p.severity === 'error').length;
}

/** Offset of a 1-based line/column in text, clamped to the text; lines split on LF (the textarea normalises CRLF). */
export function offsetOf(text: string, line: number, column = 1): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', offset);
    if (nl === -1) return text.length;
    offset = nl + 1;
  }
  const end = text.indexOf('\n', offset);
  const lineEnd = end === -1 ? text.length : end;
  return Math.min(offset + Math.max(0, column - 1), lineEnd);
}

export function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** A skeleton for a new custom template: valid as soon as it is written, so the operator starts from a working graph. */
export function skeleton(name: string, purpose: string): string {
  const p = JSON.stringify(purpose.replace(/[\r\n]+/g, ' ').trim() || 'what this template is for');
  return [
    'template:',
    `  name: ${name}`,
    `  purpose: ${p}`,
    '  inputs:',
    '    - name: brief',
    '      required: true',
    '  entry: draft',
    '  inlet: start',
    '  terminal: keep',
    'version: 1',
    'nodes:',
    '  draft:',
    '    type: model',
    '    role: writer',
    '    profile: document_write',
    '    prompt: "Write from {{inputs.brief}}."',
    '  gate: { type: builtin, builtin: human_gate }',
    '  keep: { type: builtin, builtin: save_document }',
    'cords:',
    '  - { from: draft.done, to: gate.in }',
    '  - { from: gate.approved, to: keep.in }',
    '',
  ].join('\n');
}
