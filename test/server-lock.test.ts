/**
 * The root lock with the real process (dist/src/server.js): a server killed
 * with SIGKILL never keeps its root from the next start — also as PID 1 of
 * its own PID namespace, the Docker case, where the next server is PID 1 as
 * well and the old lock's pid looks alive. Waits are bounded by the test's
 * timeout, not asserted.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { killChild, spawnChild } from './children.js';
import { fullProof, killHard, SERVER_JS, startServer } from './proof-helpers.js';

/** `npm test` runs the first case (a real SIGKILL and restart); `npm run test:proof` runs them all. */
const FULL = fullProof();

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const LOCK = '.desk-library.lock';
const holderOf = (root: string) => {
  const [name] = readdirSync(join(root, LOCK));
  return JSON.parse(readFileSync(join(root, LOCK, name!), 'utf8')) as { pid: number };
};

test('SIGKILL, then a new server on the same root starts', async () => {
  const root = join(dir, 'lib');
  const first = await startServer(root, dir);
  expect(holderOf(root).pid).toBe(first.child.pid);
  await killHard(first);
  expect(existsSync(join(root, LOCK))).toBe(true);
  const second = await startServer(root, dir);
  try {
    expect(holderOf(root).pid).toBe(second.child.pid);
    second.child.kill('SIGTERM');
    expect(await second.exited, second.stdout()).toBe(0);
    expect(existsSync(join(root, LOCK))).toBe(false);
  } finally {
    await killHard(second);
  }
});

test.runIf(FULL)('a server whose lock is deleted under it logs "root lock lost" and exits 1', async () => {
  const root = join(dir, 'lib');
  const s = await startServer(root, dir);
  try {
    await rm(join(root, LOCK), { recursive: true });
    // found at the next touch, within the 2 s refresh
    expect(await s.exited).toBe(1);
    expect(s.stdout()).toContain('root lock lost');
  } finally {
    await killHard(s);
  }
});

const UNSHARE = ['--user', '--map-root-user', '--pid', '--fork', '--mount-proc', '--kill-child'];
const canUnshare = FULL && spawnSync('unshare', [...UNSHARE, 'true']).status === 0;

interface Pid1Server {
  child: ChildProcess;
  exited: Promise<number | null>;
  out: () => string;
}

/** `unshare … node server.js`: the server is PID 1 of a new PID namespace; resolves once it listens. */
async function startAsPid1(root: string): Promise<Pid1Server> {
  const child = spawnChild('unshare', [...UNSHARE, process.execPath, SERVER_JS], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', DESK_LIBRARY_ROOT: root },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => out.includes('Server listening') && resolve());
    void exited.then((code) => reject(new Error(`exited ${code} before listening: ${err}`)));
  });
  return { child, exited, out: () => out };
}

test.runIf(canUnshare)('as PID 1 of a PID namespace: SIGKILL, then the next PID 1 on the same root starts', async () => {
  const root = join(dir, 'lib');
  const first = await startAsPid1(root);
  expect(holderOf(root).pid).toBe(1);
  // SIGKILL to unshare's group: the server dies with it (--kill-child), leaving its lock
  killChild(first.child);
  await first.exited;
  expect(holderOf(root).pid).toBe(1);
  // the old lock names pid 1, alive in the new namespace (the server itself): it is taken over once stale
  const second = await startAsPid1(root);
  try {
    expect(holderOf(root).pid).toBe(1);
    expect(second.out()).not.toContain('"level":50');
  } finally {
    killChild(second.child);
    await second.exited;
  }
});
