/**
 * The journal (docs/architecture.md, "Crash records"): one folder at the
 * root's top, one self-verifying entry format, and the records the release
 * before it kept under `.git/` adopted at the first start.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { formatEntry, listEntries, parseEntry, readEntry, writeEntryDurable } from '../src/library/disk/journal.js';
import { adoptLegacy } from '../src/library/disk/journal-legacy.js';
import { clearRound, loadRound, saveRound } from '../src/library/sync/store.js';
import { openLibrary } from '../src/library/library.js';
import { testSpawner } from './test-spawner.js';

let root = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'desk-journal-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const HEX = 'a'.repeat(40);
const job = (message: string) => ({ message, who: 'ann', at: 1_700_000_000_000, files: { 'templates/x.yaml': Buffer.from('x').toString('base64') } });
const OLD_JOB = (seq: number) => `001700000000000-0004242-${String(seq).padStart(9, '0')}.json`;
const NEW_JOB = (seq: number) => `commit-001700000000000-0004242-${String(seq).padStart(9, '0')}.intent`;

describe('the entry format', () => {
  test('reads back what was written, and nothing torn, damaged or of another kind', () => {
    const text = formatEntry('round', { remote: HEX, head: null });
    expect(text.split('\n')[0]).toBe('round');
    expect(parseEntry(text, 'round')).toEqual({ remote: HEX, head: null });
    expect(parseEntry(text, 'upgrade')).toBeNull();
    for (let cut = 0; cut < text.length; cut++) expect(parseEntry(text.slice(0, cut), 'round')).toBeNull();
    expect(parseEntry(text.replace('"head":null', '"head":1   '), 'round')).toBeNull();
    expect(parseEntry('\0'.repeat(text.length), 'round')).toBeNull();
  });

  test('a round entry lives in .desk-journal/, not under .git/, and a torn one reads as none', async () => {
    const gitDir = join(root, '.git');
    await mkdir(gitDir);
    await saveRound(gitDir, { remote: HEX, head: null });
    expect(await readdir(join(root, '.desk-journal'))).toEqual(['round.intent']);
    expect(existsSync(join(gitDir, 'desk-round.json'))).toBe(false);
    expect(await loadRound(gitDir)).toEqual({ remote: HEX, head: null });
    const text = await readFile(join(root, '.desk-journal', 'round.intent'), 'utf8');
    await writeFile(join(root, '.desk-journal', 'round.intent'), text.slice(0, -3));
    expect(await loadRound(gitDir)).toBeNull();
    await clearRound(gitDir);
    expect(await readdir(join(root, '.desk-journal'))).toEqual([]);
  });
});

/** The previous release's records, as it wrote them under `.git/`. */
async function legacy(): Promise<void> {
  await mkdir(join(root, '.git', 'desk-history', 'pending'), { recursive: true });
  await writeFile(join(root, '.git', 'desk-round.json'), JSON.stringify({ remote: HEX, head: null }));
  await writeFile(join(root, '.git', 'desk-upgrade.json'), JSON.stringify({ names: [{ kind: 'template', name: 'quick-fix', from: null, to: 'b'.repeat(64) }], who: null }));
  await writeFile(join(root, '.git', 'desk-history', 'pending', OLD_JOB(1)), JSON.stringify(job('save one')));
  await writeFile(join(root, '.git', 'desk-history', 'pending', OLD_JOB(2)), JSON.stringify(job('save two')));
  await writeFile(join(root, '.git', 'desk-history', 'pending', `.tmp-${OLD_JOB(3)}`), '{"mess');
  await writeFile(join(root, '.git', 'desk-history', 'landing.json'), JSON.stringify({ commit: HEX, names: [OLD_JOB(1)] }));
}

test('a link placed at .desk-journal is never written, read or swept through', async () => {
  const elsewhere = join(root, 'elsewhere');
  await mkdir(elsewhere);
  await writeFile(join(elsewhere, 'round.intent'), formatEntry('round', { remote: HEX, head: null }));
  await writeFile(join(elsewhere, '.tmp-x'), 'someone else');
  await symlink(elsewhere, join(root, '.desk-journal'));
  await mkdir(join(root, '.git'));
  await expect(saveRound(join(root, '.git'), { remote: HEX, head: null })).rejects.toMatchObject({ code: 'symlink_refused' });
  expect(await loadRound(join(root, '.git'))).toBeNull();
  expect(listEntries(root, '')).toEqual([]);
  const lib = await openLibrary({ spawner: testSpawner, root });
  await lib.close();
  expect((await readdir(elsewhere)).sort()).toEqual(['.tmp-x', 'round.intent']);
});

describe("the previous release's records", () => {
  test('are adopted as journal entries with the same bodies, the queue in order, and removed from .git/', async () => {
    await legacy();
    expect(await adoptLegacy(root)).toEqual({ round: true, upgrade: true, commits: 2 });
    expect(listEntries(root, '')).toEqual([NEW_JOB(1), NEW_JOB(2), 'landing.intent', 'round.intent', 'upgrade.intent']);
    expect(readEntry(root, NEW_JOB(1), 'commit')).toEqual(job('save one'));
    expect(readEntry(root, NEW_JOB(2), 'commit')).toEqual(job('save two'));
    expect(readEntry(root, 'landing.intent', 'landing')).toEqual({ commit: HEX, names: [NEW_JOB(1)] });
    expect(readEntry(root, 'round.intent', 'round')).toEqual({ remote: HEX, head: null });
    expect((readEntry(root, 'upgrade.intent', 'upgrade') as { names: unknown[] }).names).toHaveLength(1);
    for (const p of ['desk-round.json', 'desk-upgrade.json', 'desk-history']) expect(existsSync(join(root, '.git', p)), p).toBe(false);
  });

  test('a .git that is a link is not looked into', async () => {
    const other = join(root, 'other');
    await mkdir(join(other, 'desk-history', 'pending'), { recursive: true });
    await writeFile(join(other, 'desk-round.json'), JSON.stringify({ remote: HEX, head: null }));
    await writeFile(join(other, 'desk-history', 'pending', OLD_JOB(1)), JSON.stringify(job('save one')));
    await symlink(other, join(root, '.git'));
    expect(await adoptLegacy(root)).toEqual({ round: false, upgrade: false, commits: 0 });
    expect(listEntries(root, '')).toEqual([]);
    expect(existsSync(join(other, 'desk-round.json'))).toBe(true);
    expect(existsSync(join(other, 'desk-history', 'pending', OLD_JOB(1)))).toBe(true);
  });

  test('a start cut short between writing the entries and removing the old files adopts them again, the same', async () => {
    await legacy();
    await writeEntryDurable(root, NEW_JOB(1), 'commit', job('save one'));
    await adoptLegacy(root);
    const once = new Map(listEntries(root, '').map((n) => [n, readEntry(root, n, n.split(/[-.]/)[0] as 'commit')]));
    await legacy();
    await adoptLegacy(root);
    expect(new Map(listEntries(root, '').map((n) => [n, readEntry(root, n, n.split(/[-.]/)[0] as 'commit')]))).toEqual(once);
  });

  test('a queued commit the previous release left is committed at the first start, and nothing is left of it', async () => {
    execFileSync('git', ['init', '-q', '-b', 'main', root]);
    await mkdir(join(root, '.git', 'desk-history', 'pending'), { recursive: true });
    const files = { 'templates/my-flow.yaml': Buffer.from('not even yaml: [\n').toString('base64') };
    await writeFile(join(root, '.git', 'desk-history', 'pending', OLD_JOB(1)), JSON.stringify({ message: 'save my-flow', who: null, at: 1_700_000_000_000, files }));
    // the save had landed on disk, as it does before its job is queued
    await mkdir(join(root, 'templates'));
    await writeFile(join(root, 'templates', 'my-flow.yaml'), 'not even yaml: [\n');
    const lib = await openLibrary({ spawner: testSpawner, root });
    try {
      await lib.history.settle();
      const log = execFileSync('git', ['-C', root, 'log', '--format=%s'], { encoding: 'utf8' }).trim().split('\n');
      // replayed first, before the start's own commit of what else it found
      expect(log.at(-1)).toBe('save my-flow');
      expect(log.filter((m) => m.includes('my-flow'))).toEqual(['save my-flow']);
      expect(execFileSync('git', ['-C', root, 'show', 'HEAD:templates/my-flow.yaml'], { encoding: 'utf8' })).toBe('not even yaml: [\n');
      expect(existsSync(join(root, '.git', 'desk-history', 'pending', OLD_JOB(1)))).toBe(false);
      expect(listEntries(root, '')).toEqual([]);
    } finally {
      await lib.close();
    }
  });
});
