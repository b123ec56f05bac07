import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Runs the real bin (bin/desk-library.js → dist/, built by test/global-setup.ts).
const bin = join(import.meta.dirname, '..', 'bin', 'desk-library.js');
const fx = (f: string) => join(import.meta.dirname, 'fixtures', 'cli', f);

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
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
  it('exits 0 and prints nothing for a valid shipped template', () => {
    const r = run('validate', fx('quick-fix.yaml'));
    expect(r).toMatchObject({ code: 0, out: '' });
  });

  it('prints one FILE:LINE:COL line per problem and exits 1 on errors', () => {
    const r = run('validate', fx('broken-gate.yaml'));
    expect(r.code).toBe(1);
    const got = lines(r.out);
    expect(got.every((p) => p.file === fx('broken-gate.yaml'))).toBe(true);
    expect(got.map((p) => p.code)).toEqual(expect.arrayContaining(['model.profile_missing', 'land.ungated']));
    const profile = got.find((p) => p.code === 'model.profile_missing')!;
    expect(profile.line).toBe(8);
  });

  it('checks the name against the file name', () => {
    const r = run('validate', '--library', fx('library'), fx('wrong-name.yaml'));
    expect(r.code).toBe(1);
    expect(lines(r.out).map((p) => p.code)).toEqual(['name.mismatch']);
  });

  it('knows an operator role only with --library', () => {
    expect(lines(run('validate', fx('wrong-name.yaml')).out).map((p) => p.code)).toContain('model.role_unknown');
    expect(lines(run('validate', '--library', fx('library'), fx('wrong-name.yaml')).out).map((p) => p.code)).not.toContain(
      'model.role_unknown',
    );
  });

  it('--format json gives file, valid and problems for every file', () => {
    const r = run('validate', '--format', 'json', fx('quick-fix.yaml'), fx('broken-gate.yaml'));
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out) as { file: string; valid: boolean; problems: { code: string; path: string }[] }[];
    expect(json.map((f) => [f.file, f.valid])).toEqual([
      [fx('quick-fix.yaml'), true],
      [fx('broken-gate.yaml'), false],
    ]);
    expect(json[1]!.problems.find((p) => p.code === 'model.profile_missing')?.path).toBe('/nodes/work/profile');
  });

  it('exits 2 for an unreadable file, still checking the others', () => {
    const r = run('validate', fx('missing.yaml'), fx('broken-gate.yaml'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('missing.yaml');
    expect(lines(r.out).length).toBeGreaterThan(0);
  });

  it.each([[[]], [['validate']], [['frobnicate']], [['validate', '--format', 'xml', 'x.yaml']], [['validate', '--nope', 'x']]])(
    'exits 2 on a usage error: %j',
    (args) => {
      const r = run(...args);
      expect(r.code).toBe(2);
      expect(r.err).toContain('usage:');
    },
  );
});

describe('desk-library schema', () => {
  it('prints the draft-07 JSON Schema', () => {
    const r = run('schema');
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.out) as { $schema?: string; properties?: Record<string, unknown> };
    expect(schema.$schema).toContain('draft-07');
    expect(Object.keys(schema.properties ?? {})).toEqual(expect.arrayContaining(['template', 'version', 'nodes', 'cords']));
  });
});
