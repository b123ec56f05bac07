import { parseArgs } from 'node:util';
import { openLibraryReader } from '../library/index.js';
import type { Catalogue } from '../template/model.js';
import { validateTemplate } from '../template/validate.js';
import { githubReport } from './github.js';
import { collectInputs, type Input } from './inputs.js';
import { EXIT, type Io } from './io.js';
import { type FileResult, isUnreadable } from './results.js';
import { rules } from './rules.js';
import { sarifLog } from './sarif.js';
import { textReport } from './text.js';

export const FORMATS = ['text', 'json', 'sarif', 'github'] as const;
type Format = (typeof FORMATS)[number];

/** `desk-library validate`: every input checked, printed in one format; `usage` prints a usage error and gives its exit code. */
export async function validateCommand(args: string[], io: Io, usage: (why: string) => number): Promise<number> {
  let files: string[];
  let values: { format?: string | undefined; library?: string | undefined; name?: string | undefined; 'allow-empty'?: boolean | undefined };
  try {
    const p = parseArgs({
      args,
      allowPositionals: true,
      options: { format: { type: 'string', default: 'text' }, library: { type: 'string' }, name: { type: 'string' }, 'allow-empty': { type: 'boolean' } },
    });
    files = p.positionals;
    values = p.values;
  } catch (e) {
    return usage((e as Error).message);
  }
  const format = values.format ?? 'text';
  if (files.length === 0) return usage('validate needs at least one FILE (a folder, or - for stdin)');
  if (!isFormat(format)) return usage(`--format must be one of ${FORMATS.join(', ')}, got '${format}'`);
  const stdins = files.filter((f) => f === '-').length;
  if (stdins > 1) return usage('- (stdin) can be given once');
  if (values.name !== undefined && stdins === 0) return usage('--name names stdin: give - as a FILE');

  const { inputs, empty } = await collectInputs(files, { name: values.name, stdin: io.stdin ?? process.stdin });
  // No file at all is a CI step pointed at the wrong place, not a clean library (docs/operations.md).
  if (inputs.length === 0 && !values['allow-empty']) {
    io.err(`desk-library: no template file to check: no *.yaml file under ${files.join(', ')} (--allow-empty lets that pass)\n`);
    return EXIT.usage;
  }
  for (const dir of inputs.length ? empty : []) io.err(`desk-library: warning: no *.yaml file under ${dir}\n`);

  let catalogue: Catalogue;
  try {
    catalogue = await loadCatalogue(values.library, inputs);
  } catch (e) {
    io.err(`desk-library: cannot read library ${values.library}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
    return EXIT.usage;
  }

  const results: FileResult[] = inputs.map((input) => {
    if (input.kind !== 'source') return { file: input.label, valid: false, problems: [input.problem] };
    const { problems, valid } = validateTemplate(input.source, input.name === undefined ? { catalogue } : { name: input.name, catalogue });
    return { file: input.label, valid, problems };
  });
  const code = results.some(isUnreadable) ? EXIT.usage : results.some((r) => !r.valid) ? EXIT.problems : EXIT.ok;

  if (format === 'text') textReport(results, io);
  else if (format === 'json') io.out(JSON.stringify(results, null, 2) + '\n');
  else if (format === 'sarif') io.out(JSON.stringify(sarifLog(results, rules(), code), null, 2) + '\n');
  else io.out(githubReport(results));
  return code;
}

function isFormat(s: string): s is Format {
  return (FORMATS as readonly string[]).includes(s);
}

/**
 * Roles and templates the files are checked against: the catalogue the
 * service answers for the --library root (shipped, read-only, the
 * operator's, each role's kit), read without its lock and without writing
 * there, so a root a running service holds is read as it serves it; with
 * no --library, the shipped and read-only ones. The files themselves count
 * as templates too, so one may be another's `base`.
 */
async function loadCatalogue(library: string | undefined, inputs: readonly Input[]): Promise<Catalogue> {
  // a missing or unreadable --library is refused by the reader: a usage error, not an empty library
  const reader = await openLibraryReader({ root: library ?? null });
  const catalogue = await reader.catalogue();
  const names = inputs.flatMap((i) => (i.kind === 'source' && i.name !== undefined ? [i.name] : []));
  return { ...catalogue, templates: new Set([...catalogue.templates, ...names]) };
}
