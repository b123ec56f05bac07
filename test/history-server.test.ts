/**
 * History with the real server process (docs/history.md): saves answered
 * just before a SIGKILL are committed after the restart (their commits were
 * still queued: the journal keeps them), and a service without git starts,
 * says so once, and saves.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { harnessDir } from '../src/paths.js';
import { call, killHard, type ServerProcess, startServer } from './proof-helpers.js';

let dir: string;
let current: ServerProcess | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-history-server-'));
});
afterAll(async () => {
  if (current) await killHard(current);
  await rm(dir, { recursive: true, force: true });
});

const gitIn = (root: string, ...args: string[]) =>
  execFileSync('git', args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', GIT_DIR: join(root, '.git'), GIT_WORK_TREE: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
const blobOf = (text: string) => createHash('sha1').update(`blob ${Buffer.byteLength(text)}\0`).update(text).digest('hex');

test('saves answered right before a SIGKILL are in history after the restart', { timeout: 180_000 }, async () => {
  const root = join(dir, 'crash');
  const shipped = await readFile(join(harnessDir, 'templates', 'quick-fix.yaml'), 'utf8');
  const text = (i: number) => shipped.replace(/^ {2}purpose: .*$/m, `  purpose: quick fix, history crash version ${i}`);
  const answered: string[] = [];
  let n = 0;
  /** commits the journal kept across a kill, as each start logs them: the test proves nothing unless some were */
  let replayed = 0;
  const replayedBy = (out: string) => out.split('\n').reduce((sum, l) => sum + (l.includes('what the last run left') ? (JSON.parse(l) as { replayed: number }).replayed : 0), 0);
  for (let round = 0; round < 3; round++) {
    const s = await startServer(root, dir);
    current = s;
    await new Promise((r) => setTimeout(r, 300));
    replayed += replayedBy(s.stdout());
    // back to back: each answer comes in milliseconds, each commit takes several git processes, so commits queue up
    const stopAt = 4 + round * 3;
    for (let k = 0; k < stopAt; k++) {
      const t = text(n++);
      const r = await call(s.base, 'PUT', '/templates/quick-fix', { source: t });
      expect(r.status).toBe(200);
      answered.push(t);
    }
    await killHard(s);
  }
  const s = await startServer(root, dir);
  current = s;
  const until = Date.now() + 30_000;
  const held = () => new Set(gitIn(root, 'log', '--raw', '--no-abbrev', '--format=', '--', 'templates/quick-fix.yaml').split('\n').map((l) => /^:\d+ \d+ [0-9a-f]+ ([0-9a-f]+)/.exec(l)?.[1]));
  while (!answered.every((t) => held().has(blobOf(t))) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
  const ids = held();
  expect(answered.filter((t) => !ids.has(blobOf(t))).length, 'answered saves missing from history').toBe(0);
  replayed += replayedBy(s.stdout());
  expect(replayed, 'commits still queued at a kill').toBeGreaterThan(0);
  // one commit per save, in the order answered
  const subjects = gitIn(root, 'log', '--reverse', '--format=%s', '--', 'templates/quick-fix.yaml').trim().split('\n');
  expect(subjects.filter((x) => x.startsWith('save quick-fix'))).toHaveLength(answered.length);
  const order = gitIn(root, 'log', '--reverse', '--format=%H', '--', 'templates/quick-fix.yaml').trim().split('\n').map((c) => gitIn(root, 'rev-parse', `${c}:templates/quick-fix.yaml`).trim());
  expect(order).toEqual(answered.map(blobOf));
  expect(() => gitIn(root, 'fsck', '--no-progress', '--no-dangling')).not.toThrow();
  s.child.kill('SIGTERM');
  expect(await s.exited).toBe(0);
  current = undefined;
});

test('without git on PATH the service starts, says so once, and saves', { timeout: 60_000 }, async () => {
  const root = join(dir, 'no-git');
  const s = await startServer(root, dir, { PATH: join(dir, 'no-such-bin') });
  current = s;
  const r = await call(s.base, 'PUT', '/templates/quick-fix', { source: (await readFile(join(harnessDir, 'templates', 'quick-fix.yaml'), 'utf8')).replace(/^ {2}purpose: .*$/m, '  purpose: no history') });
  expect(r.status).toBe(200);
  const lines = s.stdout().split('\n').filter((l) => l.includes('git was not found'));
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, history: false });
  s.child.kill('SIGTERM');
  expect(await s.exited).toBe(0);
  current = undefined;
});
