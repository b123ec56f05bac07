import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { isProcessEntry, processIo } from './cli/entry.js';
import { EXIT, type Io } from './cli/io.js';
import { validateCommand } from './cli/validate.js';
import { USER_HELP, userCommand } from './cli/user.js';
import { MCP_HELP, mcpCommand } from './cli/mcp.js';
import { openLibrary, RootLockedError } from './library/index.js';
import type { UpgradePlanAnswer, UpgradeResultAnswer } from './schema/upgrade.js';
import { packageVersion } from './paths.js';
import { templateJsonSchema } from './template/schema.js';

export { processIo } from './cli/entry.js';
export { EXIT, type Io } from './cli/io.js';
export { formatProblem, summary } from './cli/text.js';

const USAGE = `usage: desk-library validate [--format text|json|sarif|github] [--library DIR] [--name NAME] [--allow-empty] FILE|DIR|-...
       desk-library upgrade --library DIR [--dry-run] [--format text|json] [--fail-on-skipped]
       desk-library schema
       desk-library serve
       desk-library user add|list|remove|rotate [NAME] --users-file FILE [--role ROLE] [--email EMAIL]
       desk-library mcp --url URL [--token-file FILE]
       desk-library --version
       desk-library COMMAND --help

validate  check template files with the service's validator.
upgrade   move the copies behind the shipped templates onto them, offline.
schema    print the template JSON Schema (draft-07) for editors.
serve     run the service, configured from the environment as \`npm start\`.
user      keep the users file (DESK_USERS_FILE): add, list, remove, rotate a token.
mcp       connect an MCP host that starts local processes to a running desk.
`;

/** Each command's own help, printed to stdout with exit 0 for `COMMAND --help`. */
const HELP = {
  validate: `usage: desk-library validate [--format text|json|sarif|github] [--library DIR] [--name NAME] [--allow-empty] FILE|DIR|-...

Checks template files with the service's validator, one line per problem
(FILE:LINE:COL: SEVERITY CODE: MESSAGE) and a summary line. A folder is
walked for *.yaml files; - reads one template from stdin. The name rule
checks each file's name (quick-fix.yaml must be template quick-fix). A file
the desk would never load (.yml, a name that is not a template name, a
read-only template's name) is an error, file.not_loaded; one that cannot be
read is file.unreadable.

  --format FORMAT  text (default); json: one array of {file, valid, problems};
                   sarif: a SARIF 2.1.0 log for code scanning; github:
                   ::error/::warning workflow commands for GitHub Actions
  --library DIR    also know the roles and templates of the library root DIR
  --name NAME      the file name stdin is checked and shown as
                   (templates/quick-fix.yaml, or quick-fix)
  --allow-empty    let a run that finds no file pass (exit 0); without it,
                   no *.yaml file under every FILE given is exit 2, and a
                   folder without one beside others is a warning on stderr
  -h, --help       this help

exit  0 no errors (warnings allowed), 1 errors found, 2 usage error,
      unreadable file, or no file found (without --allow-empty).
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
  user: USER_HELP,
  mcp: MCP_HELP,
} as const;
type Command = keyof typeof HELP;

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
  if (command === 'user') return userCommand(rest, io, (why) => usage(io, why));
  if (command === 'mcp') return mcpCommand(rest, io, (why) => usage(io, why));

  return validateCommand(rest, io, (why) => usage(io, why));
}

function isCommand(s: string): s is Command {
  return Object.hasOwn(HELP, s);
}

/** `-h` or `--help` before any `--` (after it, they would be file names). */
function wantsHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}


function usage(io: Io, why: string): number {
  io.err(`desk-library: ${why}\n\n${USAGE}`);
  return EXIT.usage;
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

// Started as a script (`node dist/src/cli.js validate …`, as a CI step may call it) the module runs
// the CLI itself, so that call can never print nothing and exit 0; imported (bin/desk-library.js,
// tests) it only exports main(), which the importer runs.
if (isProcessEntry(import.meta.url)) process.exitCode = await main(process.argv.slice(2), processIo);
