import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import ajvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { main } from '../src/cli.js';
import { CLI_CODES } from '../src/cli/codes.js';
import { annotation } from '../src/cli/github.js';
import { problemDocs } from '../src/cli/rules.js';
import { artifactUri } from '../src/cli/sarif.js';
import { PROBLEM_CODES } from '../src/template/problems.js';

/**
 * `validate` as a CI tool (docs/operations.md, "Validating in CI"): the SARIF
 * log held to the SARIF 2.1.0 JSON schema (OASIS, errata01, in
 * test/fixtures/sarif-2.1.0.json), GitHub annotations by their pattern, and
 * every input — a folder, stdin, a file the desk never loads, an unreadable
 * one — present in every format.
 */

const fx = (f: string) => join(import.meta.dirname, 'fixtures', 'cli', f);
/** Shipped templates are held to no problem at all (harness.test.ts): the clean input. */
const QUICK_FIX = readFileSync(join(import.meta.dirname, '..', 'harness', 'templates', 'quick-fix.yaml'), 'utf8');
const FORMATS = ['text', 'json', 'sarif', 'github'] as const;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-cli-formats-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(args: string[], stdin?: string) {
  let out = '';
  let err = '';
  const code = await main(['validate', ...args], { out: (s) => (out += s), err: (s) => (err += s), stdin: Readable.from(stdin === undefined ? [] : [Buffer.from(stdin)]) });
  return { code, out, err };
}

interface Json {
  file: string;
  valid: boolean;
  problems: { code: string; severity: string; line?: number; column?: number }[];
}
const json = async (...args: string[]) => {
  const r = await run(['--format', 'json', ...args]);
  return { code: r.code, files: JSON.parse(r.out) as Json[] };
};

interface SarifResult {
  ruleId: string;
  ruleIndex?: number;
  level: string;
  message: { text: string };
  locations?: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number; startColumn?: number } } }[];
}
interface Sarif {
  version: string;
  runs: { tool: { driver: { name: string; rules: { id: string; help: { text: string }; shortDescription: { text: string } }[] } }; results: SarifResult[] }[];
}

// CommonJS modules: their class and plugin are each module's `default`
const Ajv04 = ajvDraft04.default;
const addFormats = ajvFormats.default;
const ajv = new Ajv04({ allErrors: true, strict: false });
addFormats(ajv);
const sarifSchema = ajv.compile(JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'sarif-2.1.0.json'), 'utf8')) as object);

/** `::error file=…,line=…,col=…,title=CODE::message` (line and col only with a position, file only with a file). */
const ANNOTATION = /^::(error|warning) (?:file=([^,:]+),)?(?:line=(\d+),col=(\d+),)?title=([a-z_.]+)::(.+)$/;

describe('--format sarif', () => {
  it('is a SARIF 2.1.0 log: the schema holds, ruleId the code, the line and column the region', async () => {
    const r = await run(['--format', 'sarif', fx('broken-gate.yaml'), fx('quick-fix.yaml')]);
    expect(r.code).toBe(1);
    const log = JSON.parse(r.out) as Sarif;
    expect(sarifSchema(log), JSON.stringify(sarifSchema.errors?.slice(0, 3))).toBe(true);
    expect(log.version).toBe('2.1.0');
    const [run0] = log.runs;
    const results = run0!.results;
    const profile = results.find((x) => x.ruleId === 'model.profile_missing')!;
    expect(profile.level).toBe('error');
    expect(profile.locations![0]!.physicalLocation.region).toEqual({ startLine: 8, startColumn: 9 });
    expect(results.find((x) => x.ruleId === 'declare.writes')?.level).toBe('warning');
    // absolute paths as file: URLs; every result names its own rule by index
    expect(profile.locations![0]!.physicalLocation.artifactLocation.uri).toBe(`file://${fx('broken-gate.yaml')}`);
    expect(results.find((x) => x.ruleId === 'loop.unbounded')!.locations![0]!.physicalLocation.artifactLocation.uri).toBe(`file://${fx('quick-fix.yaml')}`);
    for (const x of results) expect(run0!.tool.driver.rules[x.ruleIndex!]!.id).toBe(x.ruleId);
  });

  it("lists every code as a rule, with the code's section of docs/problems.md as its help", async () => {
    const log = JSON.parse((await run(['--format', 'sarif', fx('quick-fix.yaml')])).out) as Sarif;
    const rules = log.runs[0]!.tool.driver.rules;
    expect(rules.map((r) => r.id).sort()).toEqual([...Object.keys(PROBLEM_CODES), ...Object.keys(CLI_CODES)].sort());
    const docs = problemDocs();
    for (const r of rules) {
      expect(docs.get(r.id), r.id).toBeTruthy();
      expect(r.help.text).toBe(docs.get(r.id));
    }
    // a section, not its heading: the fix the page gives is in it
    expect(rules.find((r) => r.id === 'model.profile_missing')!.help.text).toMatch(/^Fix:/m);
  });

  it('carries an unreadable file, a .yml file and stdin as results, schema-valid, exit 2', async () => {
    const yml = join(dir, 'write.yml');
    await writeFile(yml, QUICK_FIX);
    const r = await run(['--format', 'sarif', '--name', 'templates/quick-fix.yaml', fx('missing.yaml'), yml, '-'], QUICK_FIX.replace('profile: workspace_write', 'profile: nope'));
    expect(r.code).toBe(2);
    const log = JSON.parse(r.out) as Sarif;
    expect(sarifSchema(log), JSON.stringify(sarifSchema.errors?.slice(0, 3))).toBe(true);
    const byRule = new Map(log.runs[0]!.results.map((x) => [x.ruleId, x.locations?.[0]?.physicalLocation]));
    expect(byRule.get('file.unreadable')?.artifactLocation.uri).toBe(`file://${fx('missing.yaml')}`);
    expect(byRule.get('file.not_loaded')?.artifactLocation.uri).toBe(`file://${yml}`);
    expect(byRule.get('model.profile_unknown')?.artifactLocation.uri).toBe('templates/quick-fix.yaml');
    // a problem about the whole file has line 1 as its region, so no result lacks one (SARIF2017)
    expect(byRule.get('file.unreadable')?.region).toEqual({ startLine: 1 });
    expect(byRule.get('file.not_loaded')?.region).toEqual({ startLine: 1 });
    for (const x of log.runs[0]!.results) for (const l of x.locations ?? []) expect(l.physicalLocation.region?.startLine, x.ruleId).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ['templates/quick-fix.yaml', 'templates/quick-fix.yaml'],
    ['./a b/quick-fix.yaml', 'a%20b/quick-fix.yaml'],
    ['-', null],
  ])('artifact URI of %s is %s', (file, uri) => {
    expect(artifactUri(file)).toBe(uri);
  });
});

describe('--format github', () => {
  it('prints one ::error or ::warning line per problem with file, line, col and the code as title', async () => {
    const r = await run(['--format', 'github', fx('broken-gate.yaml')]);
    expect(r.code).toBe(1);
    const lines = r.out.trimEnd().split('\n');
    const annotations = lines.slice(0, -1).map((l) => ANNOTATION.exec(l));
    expect(annotations.every(Boolean), lines.join('\n')).toBe(true);
    expect(annotations.map((m) => [m![1], m![5]])).toEqual([
      ['warning', 'declare.writes'],
      ['error', 'model.profile_missing'],
      ['error', 'land.ungated'],
    ]);
    expect(annotations[1]!.slice(2, 5)).toEqual([fx('broken-gate.yaml'), '8', '9']);
    expect(lines.at(-1)).toBe('1 file, 2 errors, 1 warning');
  });

  it('escapes what the runner would read as the end of a property or of the line', () => {
    const line = annotation('a,b:c.yaml', { code: 'yaml.syntax', severity: 'error', message: '100% wrong\nsecond line', path: '', line: 1, column: 2 });
    expect(line).toBe('::error file=a%2Cb%3Ac.yaml,line=1,col=2,title=yaml.syntax::100%25 wrong%0Asecond line');
  });
});

describe('every input in every format', () => {
  it.each(FORMATS)('a .yml file is refused with why: file.not_loaded, exit 1 (%s)', async (format) => {
    const yml = join(dir, 'write.yml');
    await writeFile(yml, QUICK_FIX);
    const r = await run(['--format', format, yml]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('file.not_loaded');
    expect(r.out).toContain('write.yml');
  });

  it.each(FORMATS)('an unreadable file says so, exit 2 (%s)', async (format) => {
    const r = await run(['--format', format, fx('missing.yaml'), fx('quick-fix.yaml')]);
    expect(r.code).toBe(2);
    expect(r.out + r.err).toContain('missing.yaml');
    if (format !== 'text') expect(r.out).toContain('file.unreadable');
  });

  it('json lists an unreadable file with its file.unreadable problem, in order', async () => {
    const { code, files } = await json(fx('missing.yaml'), fx('broken-gate.yaml'));
    expect(code).toBe(2);
    expect(files.map((f) => [f.file, f.valid, f.problems.map((p) => p.code)])).toEqual([
      [fx('missing.yaml'), false, ['file.unreadable']],
      [fx('broken-gate.yaml'), false, ['declare.writes', 'model.profile_missing', 'land.ungated']],
    ]);
  });

  it('refuses each name the desk never loads: not a template name, a read-only template, not .yaml', async () => {
    const names = ['Quick_Fix.yaml', 'ticket-input.yaml', 'quick-fix.json'];
    for (const n of names) await writeFile(join(dir, n), QUICK_FIX);
    const { code, files } = await json(...names.map((n) => join(dir, n)));
    expect(code).toBe(1);
    expect(files.map((f) => [f.valid, f.problems.map((p) => p.code)])).toEqual(names.map(() => [false, ['file.not_loaded']]));
  });
});

describe('folders', () => {
  it('walks a folder for *.yaml, refuses its *.yml files and links, skips dot entries and other files', async () => {
    const lib = join(dir, 'lib');
    await mkdir(join(lib, 'templates', 'nested'), { recursive: true });
    await mkdir(join(lib, 'templates', '.shipped-base'), { recursive: true });
    await writeFile(join(lib, 'templates', 'quick-fix.yaml'), QUICK_FIX);
    await writeFile(join(lib, 'templates', 'nested', 'broken-gate.yaml'), readFileSync(fx('broken-gate.yaml')));
    await writeFile(join(lib, 'templates', 'write.yml'), QUICK_FIX);
    await writeFile(join(lib, 'templates', '.shipped-base', 'abc.yaml'), 'not: a template\n');
    await writeFile(join(lib, 'templates', '.quick-fix.shipped'), 'abc\n');
    await writeFile(join(lib, 'templates', 'notes.md'), '# notes\n');
    await symlink(join(lib, 'templates', 'quick-fix.yaml'), join(lib, 'templates', 'linked.yaml'));
    const { code, files } = await json(lib);
    expect(code).toBe(1);
    const t = join(lib, 'templates');
    expect(files.map((f) => [f.file, f.problems.some((p) => p.code === 'file.not_loaded')])).toEqual([
      [join(t, 'linked.yaml'), true],
      [join(t, 'nested', 'broken-gate.yaml'), false],
      [join(t, 'quick-fix.yaml'), false],
      [join(t, 'write.yml'), true],
    ]);
    expect(files.find((f) => f.file.endsWith('broken-gate.yaml'))!.problems.map((p) => p.code)).toContain('land.ungated');
  });

  it('a folder of clean templates exits 0 (no EISDIR)', async () => {
    const clean = join(dir, 'clean');
    await mkdir(clean);
    await writeFile(join(clean, 'quick-fix.yaml'), QUICK_FIX);
    const r = await run([clean]);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toBe('1 file, no problems\n');
  });
});

describe('stdin', () => {
  it('- reads the template from stdin; --name is the file the messages show and the name rule checks', async () => {
    const { code, files } = await (async () => {
      const r = await run(['--format', 'json', '--name', 'templates/other.yaml', '-'], QUICK_FIX);
      return { code: r.code, files: JSON.parse(r.out) as Json[] };
    })();
    expect(code).toBe(1);
    expect(files.map((f) => [f.file, f.problems.map((p) => p.code)])).toEqual([['templates/other.yaml', ['name.mismatch']]]);
  });

  it('without --name, stdin is `-` and its name is not checked', async () => {
    const r = await run(['-'], QUICK_FIX);
    expect(r).toMatchObject({ code: 0, out: '1 file, no problems\n' });
    const bad = await run(['-'], QUICK_FIX.replace('profile: workspace_write', 'profile: nope'));
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/^-:\d+:\d+: error model\.profile_unknown: /m);
  });

  it('--name with .yml is refused as the file would be', async () => {
    const r = await run(['--format', 'json', '--name', 'write.yml', '-'], QUICK_FIX);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.out) as Json[])[0]!.problems.map((p) => p.code)).toEqual(['file.not_loaded']);
  });

  it.each([[['--name', 'x', fx('quick-fix.yaml')]], [['-', '-']], [['--format', 'xml', '-']]])('exits 2 on a usage error: %j', async (args) => {
    const r = await run(args, QUICK_FIX);
    expect(r.code).toBe(2);
    expect(r.err).toContain('usage:');
  });
});

describe('docs/problems.md', () => {
  it("documents the command line's own codes with their severity", () => {
    const text = readFileSync(join(import.meta.dirname, '..', 'docs', 'problems.md'), 'utf8');
    for (const [code, { severity }] of Object.entries(CLI_CODES)) expect(text).toMatch(new RegExp(`^\\| \`${code.replace('.', '\\.')}\` \\| ${severity} \\| `, 'm'));
  });
});

describe("docs/operations.md's CI workflow", () => {
  const text = readFileSync(join(import.meta.dirname, '..', 'docs', 'operations.md'), 'utf8');
  const section = text.slice(text.indexOf('## Validating in CI'), text.indexOf('\n## ', text.indexOf('## Validating in CI') + 1));
  const workflow = parseYaml(/```yaml\n([\s\S]*?)```/.exec(section)![1]!) as { jobs: { validate: { steps: { run?: string; uses?: string; with?: Record<string, string> }[] } } };
  const steps = workflow.jobs.validate.steps;
  /** The validate commands' arguments, the paths made absolute under `root` (the repository checkout). */
  const commands = (root: string) =>
    steps.flatMap((s) => {
      const m = /desk-library\.js validate (.+?)(?: >| \|\||$)/.exec(s.run ?? '');
      return m ? [m[1]!.split(' ').map((a) => (a.startsWith('library') ? join(root, a) : a))] : [];
    });

  it('uploads the SARIF file the workflow writes, with upload-sarif', () => {
    const sarifStep = steps.find((s) => s.run?.includes('--format sarif'))!;
    const upload = steps.find((s) => s.uses?.startsWith('github/codeql-action/upload-sarif@'))!;
    expect(sarifStep.run).toContain(`> ${upload.with!.sarif_file}`);
    expect(steps.indexOf(upload)).toBeGreaterThan(steps.indexOf(sarifStep));
  });

  it('runs as written over a library: clean exits 0, a .yml file fails both steps with exit 1', async () => {
    const root = join(dir, 'repo');
    await mkdir(join(root, 'library', 'templates'), { recursive: true });
    await writeFile(join(root, 'library', 'templates', 'quick-fix.yaml'), QUICK_FIX);
    const cmds = commands(root);
    expect(cmds.map((c) => c[c.indexOf('--format') + 1])).toEqual(['sarif', 'github']);
    for (const c of cmds) expect((await run(c)).code).toBe(0);
    await writeFile(join(root, 'library', 'templates', 'nightly.yml'), QUICK_FIX);
    for (const c of cmds) {
      const r = await run(c);
      expect(r.code).toBe(1);
      if (c.includes('sarif')) expect(sarifSchema(JSON.parse(r.out))).toBe(true);
      else expect(r.out.split('\n').filter((l) => ANNOTATION.test(l))).toHaveLength(1);
    }
  });
});
