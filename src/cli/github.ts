import type { CliProblem } from './codes.js';
import type { FileResult } from './results.js';
import { summaryOf } from './text.js';

/**
 * GitHub Actions workflow commands: one `::error` or `::warning` line per
 * problem, which the runner turns into an annotation on the file and line
 * (docs/operations.md, "Validating in CI"). Escaped as the runner unescapes:
 * `%`, CR and LF everywhere, and `:` and `,` inside a property.
 */
const escapeData = (s: string) => s.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
const escapeProperty = (s: string) => escapeData(s).replaceAll(':', '%3A').replaceAll(',', '%2C');

export function annotation(file: string, p: CliProblem): string {
  const props: string[] = [];
  // stdin with no --name has no file to annotate: the line still fails the step's log
  if (file !== '-') props.push(`file=${escapeProperty(file)}`);
  if (p.line !== undefined) props.push(`line=${p.line}`, `col=${p.column ?? 1}`);
  props.push(`title=${escapeProperty(p.code)}`);
  return `::${p.severity} ${props.join(',')}::${escapeData(p.message)}`;
}

/** The annotations, then the text summary as a plain log line. */
export function githubReport(results: readonly FileResult[]): string {
  const lines = results.flatMap((r) => r.problems.map((p) => annotation(r.file, p)));
  return [...lines, summaryOf(results)].join('\n') + '\n';
}
