import { open, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { harnessDir } from './paths.js';
import type { Catalogue } from './template/model.js';
import { isRoleName, isTemplateName } from './template/names.js';
import type { Problem } from './template/problems.js';
import { LIMITS } from './template/read.js';
import { templateJsonSchema } from './template/schema.js';
import { validateTemplate } from './template/validate.js';

/** Exit codes, like actionlint: 0 clean (warnings allowed), 1 some error, 2 usage or I/O. */
export const EXIT = { ok: 0, problems: 1, usage: 2 } as const;

const USAGE = `usage: desk-library validate [--format text|json] [--library DIR] FILE...
       desk-library schema
       desk-library --help

validate  check template files with the service's validator; the name rule
          checks each file's name. Roles are the shipped ones plus, with
          --library DIR, the roles in DIR/roles.
schema    print the template JSON Schema (draft-07) for editors.
exit      0 no errors, 1 errors found, 2 usage error or unreadable file.
`;

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** Runs the CLI and returns its exit code; never calls process.exit so tests can run it in-process too. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    (command === undefined ? io.err : io.out)(USAGE);
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  if (command === 'schema') {
    if (rest.length) return usage(io, `schema takes no arguments, got '${rest[0]}'`);
    io.out(JSON.stringify(templateJsonSchema(), null, 2) + '\n');
    return EXIT.ok;
  }
  if (command !== 'validate') return usage(io, `unknown command '${command}'`);

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
  const results: { file: string; valid: boolean; problems: Problem[] }[] = [];
  for (const file of files) {
    let source: string;
    try {
      source = await readCapped(file);
    } catch (e) {
      io.err(`${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
      code = EXIT.usage;
      continue;
    }
    const { problems, valid } = validateTemplate(source, { name: nameOf(file), catalogue });
    results.push({ file, valid, problems });
    if (!valid && code === EXIT.ok) code = EXIT.problems;
    if (format === 'text') for (const p of problems) io.out(formatProblem(file, p) + '\n');
  }
  if (format === 'json') io.out(JSON.stringify(results, null, 2) + '\n');
  return code;
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

async function namesIn(dir: string, keep: (entry: string) => string | null): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return entries.map(keep).filter((n): n is string => n !== null);
}

const roleFolder = (e: string) => (isRoleName(e) ? e : null);
const templateFile = (e: string) => {
  const n = e.replace(/\.yaml$/, '');
  return n !== e && isTemplateName(n) ? n : null;
};

/** Roles and templates the files are checked against: shipped, the --library's, and the files themselves (for `base`). */
async function loadCatalogue(library: string | undefined, files: string[]): Promise<Catalogue> {
  const roles = new Set(await namesIn(join(harnessDir, 'roles'), roleFolder));
  const templates = new Set(await namesIn(join(harnessDir, 'templates'), templateFile));
  if (library !== undefined) {
    await readdir(library); // a missing or unreadable --library is a usage error, not an empty library
    for (const r of await namesIn(join(library, 'roles'), roleFolder)) roles.add(r);
    for (const t of await namesIn(join(library, 'templates'), templateFile)) templates.add(t);
  }
  for (const f of files) templates.add(nameOf(f));
  return { roles, templates };
}
