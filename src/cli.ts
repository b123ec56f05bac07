import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { RootLockedError } from './library/disk/root-lock.js';
import { openLibrary } from './library/library.js';
import { openLibraryReader } from './library/reader.js';
import type { UpgradePlanAnswer, UpgradeResultAnswer } from './schema/upgrade.js';
import { packageVersion } from './paths.js';
import type { Catalogue } from './template/model.js';
import type { Problem } from './template/problems.js';
import { LIMITS } from './template/read.js';
import { templateJsonSchema } from './template/schema.js';
import { validateTemplate } from './template/validate.js';

/** Exit codes, like actionlint: 0 clean (warnings allowed), 1 some error, 2 usage or I/O. */
export const EXIT = { ok: 0, problems: 1, usage: 2 } as const;

const USAGE = `usage: desk-library validate [--format text|json] [--library DIR] FILE...
       desk-library upgrade --library DIR [--dry-run] [--format text|json] [--fail-on-skipped]
       desk-library schema
       desk-library serve
       desk-library --version
       desk-library COMMAND --help

validate  check template files with the service's validator.
upgrade   move the copies behind the shipped templates onto them, offline.
schema    print the template JSON Schema (draft-07) for editors.
serve     run the service, configured from the environment as \`npm start\`.
`;

/** Each command's own help, printed to stdout with exit 0 for `COMMAND --help`. */
const HELP = {
  validate: `usage: desk-library validate [--format text|json] [--library DIR] FILE...

Checks template files with the service's validator, one line per problem
(FILE:LINE:COL: SEVERITY CODE: MESSAGE) and a summary line, or with
--format json one array of {file, valid, problems}. The name rule checks each
file's name (quick-fix.yaml must be template quick-fix).

  --format text|json  output format (default text)
  --library DIR       also know the roles and templates of the library root DIR
  -h, --help          this help

exit  0 no errors (warnings allowed), 1 errors found, 2 usage error or
      unreadable file.
`,
  upgrade: `usage: desk-library upgrade --library DIR [--dry-run] [--format text|json] [--fail-on-skipped]

Prints the upgrade plan of the library root DIR (docs/operations.md,
Upgrading): every operator copy saved against an older shipped version, and
what an upgrade does with it (reset, clean, conflicts, invalid,
no_kept_base). Then, unless --dry-run, upgrades every reset and clean copy,
as POST /api/desk/upgrade with {} does: one history commit. It takes the
root's lock, so it runs while the service is stopped (a deploy script).

  --library DIR       the library root (required)
  --dry-run           print the plan only; write nothing
  --format text|json  output format (default text)
  --fail-on-skipped   exit 1 when a copy needs a person
  -h, --help          this help

exit  0 it ran (skipped copies included), 1 with --fail-on-skipped when a
      copy was skipped, 2 usage error, or a running service holds the root.
`,
  schema: `usage: desk-library schema

Prints the template JSON Schema (draft-07) on stdout, for editors:
  desk-library schema > template.schema.json

  -h, --help  this help
`,
  serve: `usage: desk-library serve

Runs the service from the built dist/, exactly as \`npm start\` does after
building: configured from the environment (HOST, PORT, DESK_LIBRARY_ROOT,
DESK_TOKEN, DESK_ALLOWED_HOSTS, LOG_LEVEL; see docs/operations.md), logs on
stdout, stopped cleanly by SIGINT or SIGTERM. The library root defaults to
./.desk-library under the current folder.

  -h, --help  this help
`,
} as const;
type Command = keyof typeof HELP;

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** Runs the CLI and returns its exit code; never calls process.exit so tests can run it in-process too. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    io.err(USAGE);
    return EXIT.usage;
  }
  if (command === '--version' || command === '-v') {
    io.out(packageVersion + '\n');
    return EXIT.ok;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    const about = rest[0];
    if (about !== undefined && !isCommand(about)) return usage(io, `unknown command '${about}'`);
    io.out(about === undefined ? USAGE : HELP[about]);
    return EXIT.ok;
  }
  if (!isCommand(command)) return usage(io, `unknown command '${command}'`);
  // Help wins over everything else on the line, as in git and npm: `validate --help` needs no FILE.
  if (wantsHelp(rest)) {
    io.out(HELP[command]);
    return EXIT.ok;
  }
  if (command === 'schema' || command === 'serve') {
    if (rest.length) return usage(io, `${command} takes no arguments, got '${rest[0]}'`);
    if (command === 'schema') io.out(JSON.stringify(templateJsonSchema(), null, 2) + '\n');
    // server.ts starts the service when loaded (the module `npm start` runs), and
    // close-with-grace ends the process on a signal; until then it keeps running.
    else await import('./server.js');
    return EXIT.ok;
  }

  if (command === 'upgrade') return upgradeCommand(rest, io);

  let parsed: ReturnType<typeof parseValidateArgs>;
  try {
    parsed = parseValidateArgs(rest);
  } catch (e) {
    return usage(io, (e as Error).message);
  }
  const { files, format, library } = parsed;
  if (files.length === 0) return usage(io, 'validate needs at least one FILE');
  if (format !== 'text' && format !== 'json') return usage(io, `--format must be text or json, got '${format}'`);

  let catalogue: Catalogue;
  try {
    catalogue = await loadCatalogue(library, files);
  } catch (e) {
    io.err(`desk-library: cannot read library ${library}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
    return EXIT.usage;
  }

  let code: number = EXIT.ok;
  let unreadable = 0;
  const results: { file: string; valid: boolean; problems: Problem[] }[] = [];
  for (const file of files) {
    let source: string;
    try {
      source = await readCapped(file);
    } catch (e) {
      io.err(`${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
      code = EXIT.usage;
      unreadable++;
      continue;
    }
    const { problems, valid } = validateTemplate(source, { name: nameOf(file), catalogue });
    results.push({ file, valid, problems });
    if (!valid && code === EXIT.ok) code = EXIT.problems;
    if (format === 'text') for (const p of problems) io.out(formatProblem(file, p) + '\n');
  }
  if (format === 'json') io.out(JSON.stringify(results, null, 2) + '\n');
  else io.out(summary(files.length, unreadable, results.flatMap((r) => r.problems)) + '\n');
  return code;
}

/** `3 files, no problems` or `3 files, 2 errors, 1 warning` (with `, 1 unreadable` after the files when any). */
export function summary(files: number, unreadable: number, problems: readonly Problem[]): string {
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const errors = problems.filter((p) => p.severity === 'error').length;
  const parts = [count(files, 'file')];
  if (unreadable) parts.push(`${unreadable} unreadable`);
  if (problems.length === 0) parts.push('no problems');
  else parts.push(count(errors, 'error'), count(problems.length - errors, 'warning'));
  return parts.join(', ');
}

function isCommand(s: string): s is Command {
  return Object.hasOwn(HELP, s);
}

/** `-h` or `--help` before any `--` (after it, they would be file names). */
function wantsHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}


function parseValidateArgs(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { format: { type: 'string', default: 'text' }, library: { type: 'string' } },
  });
  return { files: positionals, format: values.format ?? 'text', library: values.library };
}

function usage(io: Io, why: string): number {
  io.err(`desk-library: ${why}\n\n${USAGE}`);
  return EXIT.usage;
}

/** `FILE:LINE:COL: SEVERITY CODE: MESSAGE`, the shape editors and CI annotators parse. */
export function formatProblem(file: string, p: Problem): string {
  const where = p.line !== undefined ? `${file}:${p.line}:${p.column ?? 1}` : file;
  return `${where}: ${p.severity} ${p.code}: ${p.message}`;
}

/** The name a file must carry: its base name without .yaml (or .yml). */
function nameOf(file: string): string {
  return basename(file).replace(/\.ya?ml$/, '');
}

/**
 * Reads at most one byte over the size cap: the reader reports `limit.size`
 * from that alone, and a huge file never has to fit in memory.
 */
async function readCapped(file: string): Promise<string> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(LIMITS.sizeBytes + 1);
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    return buf.subarray(0, n).toString('utf8');
  } finally {
    await fh.close();
  }
}

/**
 * Roles and templates the files are checked against: the catalogue the
 * service answers for the --library root (shipped, read-only, the
 * operator's, each role's kit), read without its lock and without writing
 * there, so a root a running service holds is read as it serves it; with
 * no --library, the shipped and read-only ones. The files themselves count
 * as templates too, so one may be another's `base`.
 */
async function loadCatalogue(library: string | undefined, files: string[]): Promise<Catalogue> {
  // a missing or unreadable --library is refused by the reader: a usage error, not an empty library
  const reader = await openLibraryReader({ root: library ?? null });
  const catalogue = await reader.catalogue();
  return { ...catalogue, templates: new Set([...catalogue.templates, ...files.map(nameOf)]) };
}

/** `desk-library upgrade`: the plan, then the apply of every automatic copy (docs/operations.md, Upgrading). `harnessDir`: tests' shipped files; the package's by default. */
export async function upgradeCommand(args: string[], io: Io, opts: { harnessDir?: string } = {}): Promise<number> {
  let values: { library?: string | undefined; format?: string | undefined; 'dry-run'?: boolean | undefined; 'fail-on-skipped'?: boolean | undefined };
  try {
    const p = parseArgs({
      args,
      allowPositionals: false,
      options: { library: { type: 'string' }, format: { type: 'string', default: 'text' }, 'dry-run': { type: 'boolean' }, 'fail-on-skipped': { type: 'boolean' } },
    });
    values = p.values;
  } catch (e) {
    return usage(io, (e as Error).message);
  }
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'json') return usage(io, `--format must be text or json, got '${format}'`);
  if (!values.library) return usage(io, 'upgrade needs --library DIR');
  // an upgrade never makes a root: a mistyped DIR is a usage error, not an empty library
  const isDir = await stat(values.library).then((s) => s.isDirectory(), () => false);
  if (!isDir) return usage(io, `--library ${values.library} is not a folder`);
  let library: Awaited<ReturnType<typeof openLibrary>>;
  try {
    library = await openLibrary({ root: values.library, ...(opts.harnessDir ? { harnessDir: opts.harnessDir } : {}) });
  } catch (e) {
    if (e instanceof RootLockedError) {
      io.err(`desk-library: ${e.message}\n`);
      return EXIT.usage;
    }
    throw e;
  }
  try {
    const plan = await library.planUpgrade();
    const result = values['dry-run'] ? null : await library.applyUpgrade({}, 'desk-library upgrade');
    await library.history.settle();
    if (format === 'json') io.out(JSON.stringify({ plan, ...(result ?? {}) }, null, 2) + '\n');
    else io.out(upgradeText(plan, result));
    const needsPerson = result ? result.skipped.length > 0 : [...plan.templates, ...plan.roles].some((p) => p.outcome !== 'reset' && p.outcome !== 'clean');
    return values['fail-on-skipped'] && needsPerson ? EXIT.problems : EXIT.ok;
  } finally {
    await library.close();
  }
}

/** One line per copy in the plan, then what was done: `template quick-fix: clean`, `upgraded template quick-fix (edited)`. */
function upgradeText(plan: UpgradePlanAnswer, result: UpgradeResultAnswer | null): string {
  const lines: string[] = [];
  for (const [kind, list] of [['template', plan.templates], ['role', plan.roles]] as const) {
    for (const p of list) lines.push(`${kind} ${p.name}: ${p.outcome}${p.outcome === 'conflicts' ? ` (${p.conflicts})` : ''}`);
  }
  const n = plan.templates.length + plan.roles.length;
  lines.push(n === 0 ? 'nothing is behind the shipped templates' : `${n} ${n === 1 ? 'copy is' : 'copies are'} behind the shipped templates`);
  if (result) {
    for (const a of result.applied) lines.push(`upgraded ${a.kind} ${a.name} (${a.state})`);
    for (const s of result.skipped) lines.push(`skipped ${s.kind} ${s.name}: ${s.outcome ?? s.code ?? 'not behind'}: ${s.reason}`);
    lines.push(`${result.applied.length} upgraded, ${result.skipped.length} skipped`);
  }
  return lines.join('\n') + '\n';
}
