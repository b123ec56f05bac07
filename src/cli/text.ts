import type { CliProblem } from './codes.js';
import { type FileResult, isUnreadable } from './results.js';

/** `FILE:LINE:COL: SEVERITY CODE: MESSAGE`, the shape editors and CI annotators parse. */
export function formatProblem(file: string, p: CliProblem): string {
  const where = p.line !== undefined ? `${file}:${p.line}:${p.column ?? 1}` : file;
  return `${where}: ${p.severity} ${p.code}: ${p.message}`;
}

/** `3 files, no problems` or `3 files, 2 errors, 1 warning` (with `, 1 unreadable` after the files when any). */
export function summary(files: number, unreadable: number, problems: readonly CliProblem[]): string {
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const errors = problems.filter((p) => p.severity === 'error').length;
  const parts = [count(files, 'file')];
  if (unreadable) parts.push(`${unreadable} unreadable`);
  if (problems.length === 0) parts.push('no problems');
  else parts.push(count(errors, 'error'), count(problems.length - errors, 'warning'));
  return parts.join(', ');
}

/** The summary of a whole run: an unreadable file counts as unreadable, not as an error. */
export function summaryOf(results: readonly FileResult[]): string {
  const unreadable = results.filter(isUnreadable);
  return summary(results.length, unreadable.length, results.filter((r) => !isUnreadable(r)).flatMap((r) => r.problems));
}

/** Problem lines on stdout, unreadable files on stderr (as `cat` would say), then the summary. */
export function textReport(results: readonly FileResult[], io: { out: (s: string) => void; err: (s: string) => void }): void {
  for (const r of results) {
    if (isUnreadable(r)) io.err(`${r.file}: ${r.problems[0]!.message}\n`);
    else for (const p of r.problems) io.out(formatProblem(r.file, p) + '\n');
  }
  io.out(summaryOf(results) + '\n');
}
