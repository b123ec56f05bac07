/**
 * A validate run that finds no template file is a CI step pointed at the
 * wrong place, not a clean library: exit 2 unless --allow-empty; a folder
 * with none beside inputs that have some is a warning on stderr.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';

const shipped = join(import.meta.dirname, '..', 'harness', 'templates', 'write.yaml');
const base = mkdtempSync(join(tmpdir(), 'desk-cli-empty-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const empty = join(base, 'empty');
mkdirSync(empty);
// a folder with files, none of them a template file
const notes = join(base, 'notes');
mkdirSync(join(notes, 'deeper'), { recursive: true });
writeFileSync(join(notes, 'README.md'), '# notes\n');
writeFileSync(join(notes, 'deeper', 'x.json'), '{}\n');
const full = join(base, 'full');
mkdirSync(full);
writeFileSync(join(full, 'write.yaml'), '');

async function run(...args: string[]) {
  let out = '';
  let err = '';
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

describe('validate with no file to check', () => {
  it.each(['text', 'json', 'sarif', 'github'])('exits 2 for an empty folder (--format %s) and prints no report', async (format) => {
    const r = await run('validate', '--format', format, empty);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain(empty);
  });

  it('exits 2 when every folder given yields none, whatever they hold', async () => {
    const r = await run('validate', empty, notes);
    expect(r.code).toBe(2);
    expect(r.err).toContain(notes);
  });

  it('passes with --allow-empty, with the empty report', async () => {
    const text = await run('validate', '--allow-empty', empty);
    expect(text.code).toBe(0);
    expect(text.out).toBe('0 files, no problems\n');
    const json = await run('validate', '--allow-empty', '--format', 'json', empty, notes);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual([]);
  });

  it('warns on stderr about a folder with none beside inputs that have some, and checks those', async () => {
    const r = await run('validate', '--format', 'json', empty, shipped, notes);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).map((f: { file: string }) => f.file)).toEqual([shipped]);
    const warned = r.err.trimEnd().split('\n');
    expect(warned).toHaveLength(2);
    expect(warned[0]).toContain(empty);
    expect(warned[1]).toContain(notes);
  });

  it('does not warn when every folder yields a file', async () => {
    const r = await run('validate', '--format', 'json', full, shipped);
    expect(JSON.parse(r.out)).toHaveLength(2);
    expect(r.err).toBe('');
  });
});
