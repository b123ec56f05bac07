import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';
import { allCodes, type CliCode } from './codes.js';

/** One code as a SARIF rule describes it: the summary, and the help docs/problems.md gives. */
export interface RuleHelp {
  id: CliCode;
  severity: 'error' | 'warning';
  summary: string;
  /** the code's section of docs/problems.md (markdown), or the summary when the docs are not there */
  help: string;
}

/** `### \`code\` — severity` headings: a section runs to the next heading of any level. */
const SECTION = /^### `([^`]+)` — (?:error|warning)\s*$/;
const HEADING = /^#{1,6} /;
/** `| \`code\` | severity | help |` rows (the command line's own codes). */
const ROW = /^\| `([^`]+)` \| (?:error|warning) \| (.+) \|\s*$/;

/**
 * The help of each code from docs/problems.md, read where the package keeps
 * it. The docs are the page a person reads, so code scanning shows the same
 * words; an install without docs/ (the container image) falls back to the
 * one-line summaries the program carries.
 */
export function problemDocs(file = join(packageRoot, 'docs', 'problems.md')): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return new Map();
  }
  const out = new Map<string, string>();
  let code: string | null = null;
  let lines: string[] = [];
  const close = () => {
    if (code !== null) out.set(code, lines.join('\n').trim());
    code = null;
    lines = [];
  };
  for (const line of text.split('\n')) {
    const m = SECTION.exec(line);
    if (m || HEADING.test(line)) {
      close();
      if (m) code = m[1]!;
      continue;
    }
    const row = ROW.exec(line);
    if (row) out.set(row[1]!, row[2]!.trim());
    if (code !== null) lines.push(line);
  }
  close();
  return out;
}

let cached: RuleHelp[] | null = null;

/** Every code the command line can report, with its help; read once per process. */
export function rules(): RuleHelp[] {
  if (cached) return cached;
  const docs = problemDocs();
  cached = allCodes().map(([id, { severity, summary }]) => ({ id, severity, summary, help: docs.get(id) || summary }));
  return cached;
}
