import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { LOCK_FILE } from '../src/library/disk/root-lock.js';
import { openLibrary } from '../src/library/library.js';
import { runSync } from './children.js';
import { testSpawner } from './test-spawner.js';

/**
 * `validate --library ROOT` reads the root through the library's read side
 * (src/library/reader.ts): no lock, so a root a running service holds can be
 * read; nothing written there, so no recovery, no history, no folder made.
 */

const bin = join(import.meta.dirname, '..', 'bin', 'desk-library.js');
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'desk-cli-reader-'));
  dirs.push(d);
  return d;
}

/** Every entry under `dir`: its path, its type, and its bytes' sha256 (a link: its target). */
function snapshot(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const path = rel ? `${rel}/${name}` : name;
    const st = lstatSync(join(dir, path));
    if (st.isDirectory()) out.push(`${path}/`, ...snapshot(dir, path));
    else if (st.isSymbolicLink()) out.push(`${path} -> ${readlinkSync(join(dir, path))}`);
    else out.push(`${path} ${createHash('sha256').update(readFileSync(join(dir, path))).digest('hex')}`);
  }
  return out;
}

/** A template over an operator template (`origin`) with a node playing an operator role (`auditor`). */
const VARIANT = `template:
  name: variant
  purpose: reads as an operator role, over an operator template
  base: origin
  entry: read
  inlet: start
version: 1
nodes:
  read: { type: model, role: auditor, profile: read_only }
`;
const ORIGIN = VARIANT.replace('name: variant', 'name: origin').replace('  base: origin\n', '').replace('role: auditor', 'role: worker');

/** The problem codes of one file, from the real bin (its own process, as beside a running service). */
function binCodes(...args: string[]) {
  const r = runSync(process.execPath, [bin, 'validate', '--format', 'json', ...args], { encoding: 'utf8' });
  const results = r.status === 2 ? [] : (JSON.parse(r.stdout) as { problems: { code: string }[] }[]);
  return { code: r.status, err: r.stderr, codes: results.flatMap((f) => f.problems.map((p) => p.code)) };
}

describe('validate --library reads the root without writing to it', () => {
  it('reads a root an open library holds, and leaves its bytes and entries as they were', async () => {
    const root = await tempDir();
    const file = join(await tempDir(), 'variant.yaml');
    await writeFile(file, VARIANT);
    // no git here: no history commit can change the root while the CLI reads it
    const lib = await openLibrary({ spawner: testSpawner, root, history: { git: join(root, 'no-git-here') } });
    try {
      await lib.saveTemplate('origin', ORIGIN);
      await lib.saveRole('auditor', 'Audits.\n', { tools: ['tickets.read'] });
      const before = snapshot(root);
      expect(before).toContain(`${LOCK_FILE}/`);

      // without the library, both names are unknown: the point of --library
      let out = '';
      await main(['validate', '--format', 'json', file], { out: (s) => (out += s), err: () => {} });
      expect(out).toContain('"base.unknown"');
      expect(out).toContain('"model.role_unknown"');
      const r = binCodes('--library', root, file);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.codes).not.toContain('base.unknown');
      expect(r.codes).not.toContain('model.role_unknown');

      expect(snapshot(root)).toEqual(before);
    } finally {
      await lib.close();
    }
  });

  it('reads a write under way with its intent applied, and leaves it as it is: no recovery, no lock, no .git, no folder made', async () => {
    const root = await tempDir();
    const file = join(await tempDir(), 'variant.yaml');
    await writeFile(file, VARIANT.replace('  base: origin\n', ''));
    // a role save cut short: its intent written, not yet applied (the kit it adds grants
    // tickets.update, so the node may change tickets); no templates/ folder at all
    await mkdir(join(root, 'roles', 'auditor'), { recursive: true });
    await writeFile(join(root, 'roles', 'auditor', 'role.md'), 'Audits.\n');
    const intent = { op: 'save', role_md: 'Audits and updates.\n', kit: '{"tools":["tickets.update"]}\n', marker: null };
    await writeFile(join(root, 'roles', '.auditor.intent'), JSON.stringify(intent) + '\n');
    const before = snapshot(root);

    const codes = async (...args: string[]) => {
      let out = '';
      await main(['validate', '--format', 'json', ...args, file], { out: (s) => (out += s), err: () => {} });
      return (JSON.parse(out) as { problems: { code: string }[] }[]).flatMap((f) => f.problems.map((p) => p.code));
    };
    const got = await codes('--library', root);
    expect(got).not.toContain('model.role_unknown');
    // the kit the intent holds counts, as the service reads it
    expect(got).toContain('ticket.mutation_unproven');

    const after = snapshot(root);
    expect(after).toEqual(before);
    expect(after.map((e) => e.split(' ')[0])).toEqual(['roles/', 'roles/.auditor.intent', 'roles/auditor/', 'roles/auditor/role.md']);
  });

  it.each([
    ['missing', 'ENOENT'],
    ['a file', 'ENOTDIR'],
  ])('a root that is %s is a usage error (exit 2, %s), and is not created', async (what, errno) => {
    const dir = await tempDir();
    const root = join(dir, 'lib');
    if (what === 'a file') await writeFile(root, 'not a folder\n');
    const before = snapshot(dir);
    let out = '';
    let err = '';
    const code = await main(['validate', '--library', root, join(import.meta.dirname, 'fixtures', 'cli', 'quick-fix.yaml')], {
      out: (s) => (out += s),
      err: (s) => (err += s),
    });
    expect(code).toBe(2);
    expect(err).toContain(errno);
    // refused before any file is checked
    expect(out).toBe('');
    expect(snapshot(dir)).toEqual(before);
    expect(existsSync(root)).toBe(what === 'a file');
  });
});
