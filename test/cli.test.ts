import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { killChild, runSync, spawnChild } from './children.js';

// Most cases call the CLI's main() in-process, exactly as bin/desk-library.js does: a Node start per
// case costs about half a second of CPU. The real bin (→ dist/, built by test/global-setup.ts) runs
// where the process itself is the point: an exit code and output streams, --version, and serve.
const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'desk-library.js');
const fx = (f: string) => join(import.meta.dirname, 'fixtures', 'cli', f);
/** Shipped templates are held to no problem at all by harness.test.ts: the clean input. */
const shipped = (name: string) => join(root, 'harness', 'templates', `${name}.yaml`);

function runBin(...args: string[]) {
  const r = runSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

async function run(...args: string[]) {
  let out = '';
  let err = '';
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

/** The summary line's shape: file count, unreadable count, then no problems or both counts. */
const SUMMARY = /^(\d+) files?(?:, (\d+) unreadable)?, (?:(no problems)|(\d+) errors?, (\d+) warnings?)$/;

/** Text output → its summary (the last line) as numbers, and the problem lines before it. */
function textOutput(out: string) {
  const all = out.trimEnd().split('\n');
  const m = SUMMARY.exec(all.at(-1) ?? '');
  if (!m) throw new Error(`no summary line: ${all.at(-1)}`);
  const summary = {
    files: Number(m[1]),
    unreadable: Number(m[2] ?? 0),
    errors: m[3] ? 0 : Number(m[4]),
    warnings: m[3] ? 0 : Number(m[5]),
  };
  return { summary, clean: m[3] !== undefined, problems: lines(all.slice(0, -1).join('\n')) };
}

/** `FILE:LINE:COL: SEVERITY CODE: MESSAGE` → its parts. */
function lines(out: string) {
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const m = /^(.+?):(\d+):(\d+): (error|warning) ([a-z_.]+): (.+)$/.exec(l);
      if (!m) throw new Error(`not a problem line: ${l}`);
      return { file: m[1], line: Number(m[2]), column: Number(m[3]), severity: m[4], code: m[5] };
    });
}

describe('desk-library validate', () => {
  it('exits 0 with only the summary line for clean files', async () => {
    const r = await run('validate', shipped('write'), shipped('ticket-close'));
    expect(r.code).toBe(0);
    expect(r.out.trimEnd().split('\n')).toHaveLength(1);
    const { summary, clean } = textOutput(r.out);
    expect(clean).toBe(true);
    expect(summary).toEqual({ files: 2, unreadable: 0, errors: 0, warnings: 0 });
  });

  it('ends with a summary that counts the files and the problem lines by severity', async () => {
    const r = await run('validate', fx('broken-gate.yaml'), shipped('write'), fx('missing.yaml'));
    expect(r.code).toBe(2);
    const { summary, clean, problems } = textOutput(r.out);
    expect(clean).toBe(false);
    expect(summary.files).toBe(3);
    expect(summary.unreadable).toBe(1);
    expect(summary.errors).toBe(problems.filter((p) => p.severity === 'error').length);
    expect(summary.warnings).toBe(problems.filter((p) => p.severity === 'warning').length);
    expect(summary.errors).toBeGreaterThanOrEqual(2);
  });

  it('prints one FILE:LINE:COL line per problem and exits 1 on errors', () => {
    // the real bin: main()'s code becomes the process's exit code
    const r = runBin('validate', fx('broken-gate.yaml'));
    expect(r.code).toBe(1);
    const got = textOutput(r.out).problems;
    expect(got.every((p) => p.file === fx('broken-gate.yaml'))).toBe(true);
    expect(got.map((p) => p.code)).toEqual(expect.arrayContaining(['model.profile_missing', 'land.ungated']));
    const profile = got.find((p) => p.code === 'model.profile_missing')!;
    expect(profile.line).toBe(8);
  });

  it('checks the name against the file name', async () => {
    const r = await run('validate', '--library', fx('library'), fx('wrong-name.yaml'));
    expect(r.code).toBe(1);
    expect(textOutput(r.out).problems.map((p) => p.code)).toEqual(['name.mismatch']);
  });

  it('knows an operator role only with --library', async () => {
    const codes = async (...args: string[]) => textOutput((await run('validate', ...args)).out).problems.map((p) => p.code);
    expect(await codes(fx('wrong-name.yaml'))).toContain('model.role_unknown');
    expect(await codes('--library', fx('library'), fx('wrong-name.yaml'))).not.toContain('model.role_unknown');
  });

  it('--format json gives file, valid and problems for every file', async () => {
    const r = await run('validate', '--format', 'json', fx('quick-fix.yaml'), fx('broken-gate.yaml'));
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out) as { file: string; valid: boolean; problems: { code: string; path: string }[] }[];
    expect(json.map((f) => [f.file, f.valid])).toEqual([
      [fx('quick-fix.yaml'), true],
      [fx('broken-gate.yaml'), false],
    ]);
    expect(json[1]!.problems.find((p) => p.code === 'model.profile_missing')?.path).toBe('/nodes/work/profile');
  });

  it('exits 2 for an unreadable file, still checking the others', async () => {
    const r = await run('validate', fx('missing.yaml'), fx('broken-gate.yaml'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('missing.yaml');
    expect(textOutput(r.out).problems.length).toBeGreaterThan(0);
  });

  it.each([[[]], [['validate']], [['frobnicate']], [['validate', '--format', 'xml', 'x.yaml']], [['validate', '--nope', 'x']]])(
    'exits 2 on a usage error: %j',
    async (args) => {
      const r = await run(...args);
      expect(r.code).toBe(2);
      expect(r.err).toContain('usage:');
    },
  );
});

describe('desk-library schema', () => {
  it('prints the draft-07 JSON Schema', async () => {
    const r = await run('schema');
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.out) as { $schema?: string; properties?: Record<string, unknown> };
    expect(schema.$schema).toContain('draft-07');
    expect(Object.keys(schema.properties ?? {})).toEqual(expect.arrayContaining(['template', 'version', 'nodes', 'cords']));
  });
});

describe('desk-library help and version', () => {
  it('--version prints the package.json version', () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(runBin('--version')).toMatchObject({ code: 0, out: `${version}\n` });
  });

  it.each([
    ['validate', '--help'],
    ['validate', '-h'],
    ['validate', '--format', 'json', '--help'],
    ['schema', '--help'],
    ['serve', '--help'],
    ['help', 'validate'],
  ])('%s %s prints that command\'s usage on stdout and exits 0', async (...args) => {
    const r = await run(...args);
    const command = args[0] === 'help' ? args[1] : args[0];
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(new RegExp(`^usage: desk-library ${command}\\b`));
    expect(r.err).toBe('');
  });

  it.each([[['schema', 'extra']], [['serve', 'extra']], [['help', 'frobnicate']]])('exits 2 on a usage error: %j', async (args) => {
    const r = await run(...args);
    expect(r.code).toBe(2);
    expect(r.err).toContain('usage:');
  });
});

describe('desk-library serve', () => {
  it('runs the service from the environment, answers health, and stops cleanly on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'desk-cli-serve-'));
    const lib = join(dir, 'lib');
    // Its own process group, killed in the finally below or, if the test times out, after the file (test/children.ts).
    const child = spawnChild(process.execPath, [bin, 'serve'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', PORT: '0', DESK_LIBRARY_ROOT: lib, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      let out = '';
      let err = '';
      child.stderr!.on('data', (d) => (err += d));
      // Waits for the listen log line or the process's end, whichever comes first: no fixed sleep.
      const base = await new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', (d) => {
          out += d;
          const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        void exited.then((code) => reject(new Error(`serve exited ${code}: ${err}`)));
      });
      const health = await fetch(`${base}/api/desk/status`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true });
      // The root from DESK_LIBRARY_ROOT, as npm start would take it.
      const status = await fetch(`${base}/api/desk/status`);
      expect(await status.json()).toMatchObject({ library_root: lib });
      expect(existsSync(join(lib, '.desk-library.lock'))).toBe(true);

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(existsSync(join(lib, '.desk-library.lock'))).toBe(false);
    } finally {
      killChild(child);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
