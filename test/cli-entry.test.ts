/**
 * The CLI runs whichever way it is started: through bin/desk-library.js (also
 * through a link to it, as npm's node_modules/.bin makes), and as the built
 * module itself, `node dist/src/cli.js …`, which a CI step may call. Before,
 * the module only exported main(): started directly it printed nothing and
 * exited 0 on a broken file. Each way runs main() exactly once.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSync } from './children.js';

const root = join(import.meta.dirname, '..');
const broken = join(import.meta.dirname, 'fixtures', 'cli', 'broken-gate.yaml');
const links = mkdtempSync(join(tmpdir(), 'desk-cli-entry-'));
afterAll(() => rmSync(links, { recursive: true, force: true }));

const linkedBin = join(links, 'desk-library');
symlinkSync(join(root, 'bin', 'desk-library.js'), linkedBin);

const entries: [string, string][] = [
  ['bin/desk-library.js', join(root, 'bin', 'desk-library.js')],
  ['a link to the bin', linkedBin],
  ['node dist/src/cli.js', join(root, 'dist', 'src', 'cli.js')],
  ['node dist/src/cli', join(root, 'dist', 'src', 'cli')],
];

function run(script: string, ...args: string[]) {
  const r = runSync(process.execPath, [script, ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe.each(entries)('the CLI started as %s', (_, script) => {
  it('fails a broken file with exit 1 and one summary line', () => {
    const r = run(script, 'validate', broken);
    expect(r.code, r.err).toBe(1);
    expect(r.out, r.err).toMatch(/^.+broken-gate\.yaml:\d+:\d+: error /m);
    // main() ran once: one summary line, not two, not none
    expect(r.out.match(/^1 file, \d+ errors?, \d+ warnings?$/gm)).toHaveLength(1);
  });

  it('prints --help once on stdout and exits 0', () => {
    const r = run(script, '--help');
    expect(r.code, r.err).toBe(0);
    expect(r.out.match(/^usage: desk-library validate/gm)).toHaveLength(1);
  });
});
