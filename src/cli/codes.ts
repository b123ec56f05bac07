import { PROBLEM_CODES, type Severity } from '../template/problems.js';

/**
 * Codes only the command line reports: about an input file as the desk would
 * (or would not) load it, never about a template's content. They share the
 * problem shape so every output format carries them like the validator's
 * (docs/problems.md, "Command line inputs").
 */
export const CLI_CODES = {
  'file.not_loaded': {
    severity: 'error',
    summary: 'a file the desk never loads as a template: not `.yaml`, a name that is not a template name, a read-only template\'s name, or a symbolic link',
  },
} as const satisfies Record<string, { severity: Severity; summary: string }>;

export type CliCode = keyof typeof CLI_CODES | keyof typeof PROBLEM_CODES;

/** A problem of the validator or of the command line: the validator's shape, with either table's code. */
export interface CliProblem {
  code: CliCode;
  severity: Severity;
  message: string;
  path: string;
  line?: number;
  column?: number;
}

/** Every code the command line can print, the validator's first, with its severity and one-line summary. */
export function allCodes(): [CliCode, { severity: Severity; summary: string }][] {
  return [...Object.entries(PROBLEM_CODES), ...Object.entries(CLI_CODES)] as [CliCode, { severity: Severity; summary: string }][];
}

/** A command-line problem about the whole file: no position, path `''`. */
export function fileProblem(code: 'file.not_loaded' | 'file.unreadable', message: string): CliProblem {
  const severity = code === 'file.unreadable' ? PROBLEM_CODES[code].severity : CLI_CODES[code].severity;
  return { code, severity, message, path: '' };
}
