/**
 * Problems (1-based line and column, src/schema/errors.ts) as CodeMirror
 * diagnostics: a squiggle from the problem's column to the end of the word
 * there, and a gutter mark on its line. A problem without a line concerns the
 * whole file and shows only in the problems panel.
 */
import { type Diagnostic, forEachDiagnostic } from '@codemirror/lint';
import type { EditorState, Text } from '@codemirror/state';
import type { Problem } from '../schema/errors.js';

/** The token a problem points at ends at one of these: a key is marked without its colon. */
const STOP = /[\s,:{}[\]]/;

export function toDiagnostics(doc: Text, problems: readonly Problem[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const p of problems) {
    if (p.line == null) continue;
    const line = doc.line(Math.min(Math.max(1, p.line), doc.lines));
    const col = Math.min(Math.max(0, (p.column ?? 1) - 1), line.length);
    let end = col;
    while (end < line.length && !STOP.test(line.text[end]!)) end++;
    // nothing word-like at the column (a missing key at a mapping's start): mark to the line's end instead
    if (end === col) end = line.length;
    out.push({ from: line.from + col, to: line.from + end, severity: p.severity, message: p.message, source: p.code });
  }
  return out;
}

/**
 * Whether `state` already shows exactly these diagnostics, as CodeMirror
 * mapped the last ones through the edits since: then setting them again
 * would change nothing on screen.
 */
export function showsExactly(state: EditorState, diagnostics: readonly Diagnostic[]): boolean {
  const key = (d: Diagnostic, from: number, to: number) => `${from}:${to}:${d.severity}:${d.source}:${d.message}`;
  const now: string[] = [];
  forEachDiagnostic(state, (d, from, to) => now.push(key(d, from, to)));
  if (now.length !== diagnostics.length) return false;
  const want = diagnostics.map((d) => key(d, d.from, d.to));
  now.sort();
  want.sort();
  return now.every((k, i) => k === want[i]);
}
