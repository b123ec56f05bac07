/**
 * Problems (1-based line and column, src/schema/errors.ts) as CodeMirror
 * diagnostics: a squiggle from the problem's column to the end of the word
 * there, and a gutter mark on its line. A problem without a line concerns the
 * whole file and shows only in the problems panel.
 */
import type { Diagnostic } from '@codemirror/lint';
import type { Text } from '@codemirror/state';
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
