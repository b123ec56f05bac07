import type { CliProblem } from './codes.js';

/** One input's outcome, what every format prints: `--format json` is exactly a list of these. */
export interface FileResult {
  /** the path as given (or found in a folder), `-` for stdin, or --name */
  file: string;
  valid: boolean;
  problems: CliProblem[];
}

/** An input that could not be read: its one problem is `file.unreadable` (exit 2). */
export function isUnreadable(r: FileResult): boolean {
  return r.problems.some((p) => p.code === 'file.unreadable');
}
