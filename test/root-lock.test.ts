/**
 * The root lock (src/library/disk/root-lock.ts, docs/operations.md "Two
 * servers"): a dead holder never keeps it, whatever its PID or host name; a
 * live one is refused, by name; exactly one of several starters wins. Locks
 * left by earlier processes are planted on disk in the lock's own format.
 * Waits are bounded by the lock's own stale bound, never asserted as times:
 * where only one rule can explain a result, the others are switched off with
 * an hour-long bound.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { acquireRootLock, type ExitHooks, HeldLocks, LOCK_FILE, RootLockedError } from '../src/library/disk/root-lock.js';
import { processIdentity } from '../src/library/disk/lock-holder.js';
import { spawnChild } from './children.js';
import { fixture, tempDir } from './library-helpers.js';
import { scaled } from './proof-helpers.js';

const HOUR = 3_600_000;
const ROOT_LOCK_JS = join(import.meta.dirname, '..', 'dist', 'src', 'library', 'disk', 'root-lock.js');

interface Planted {
  pid: number;
  host: string;
  started?: string;
  [k: string]: unknown;
}

/** A lock as a holder that is no longer running left it; `ageMs` sets its mtime that far back. */
async function plant(root: string, holder: Planted, ageMs = 0): Promise<string> {
  const dir = join(root, LOCK_FILE);
  const nonce = randomBytes(16).toString('hex');
  await mkdir(dir);
  await writeFile(join(dir, `holder-${nonce}.json`), JSON.stringify({ started: '2026-01-01T00:00:00.000Z', ...holder }));
  const t = new Date(Date.now() - ageMs);
  await utimes(dir, t, t);
  return nonce;
}

const refusal = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as RootLockedError);
const holderOnDisk = async (root: string) => {
  const dir = join(root, LOCK_FILE);
  const [name] = await readdir(dir);
  return JSON.parse(await readFile(join(dir, name!), 'utf8')) as Planted;
};

describe('a live holder', () => {
  test('a second open on the same root is refused, naming the holder; close removes the lock', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const err = await refusal(fx.open());
    expect(err).toBeInstanceOf(RootLockedError);
    expect(err!.holder).toMatchObject({ pid: process.pid, host: hostname() });
    expect(err!.message).toContain(`pid ${process.pid}`);
    await lib.close();
    expect(await readdir(fx.root)).not.toContain(LOCK_FILE);
    await (await fx.open()).close();
  });

  test('the holder file names pid, host and start; release removes the lock and nothing else', async () => {
    const root = await tempDir();
    await writeFile(join(root, 'keep.txt'), 'x');
    const lock = await acquireRootLock(root, () => Date.UTC(2024, 0, 2));
    expect(await holderOnDisk(root)).toMatchObject({ pid: process.pid, host: hostname(), started: '2024-01-02T00:00:00.000Z', ...processIdentity() });
    await lock.release();
    await lock.release();
    expect(await readdir(root)).toEqual(['keep.txt']);
  });

  test('a holder in another process that keeps its lock fresh is refused, with its pid', async () => {
    const root = await tempDir();
    // the child takes the lock, says so, and keeps it (its refresh timer is unref'd, so an interval keeps it alive)
    const child = spawnChild(process.execPath, [
      '--input-type=module',
      '-e',
      `const { acquireRootLock } = await import(${JSON.stringify(ROOT_LOCK_JS)});
       await acquireRootLock(${JSON.stringify(root)}, Date.now, { updateMs: 1000 });
       console.log('held'); setInterval(() => {}, 1000);`,
    ]);
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d) => String(d).includes('held') && resolve());
      child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
    });
    // an hour-long stale bound: only seeing the holder touch its lock can end the wait
    const err = await refusal(acquireRootLock(root, Date.now, { staleMs: HOUR }));
    expect(err).toBeInstanceOf(RootLockedError);
    expect(err!.holder?.pid).toBe(child.pid);
    expect(existsSync(join(root, LOCK_FILE))).toBe(true);
  });
});

describe('a dead holder never keeps the lock', () => {
  test('a lock naming our own pid, left by an earlier process, is taken over once stale', async () => {
    // the container case: the server is PID 1 again, and so was the holder; the old code saw the pid alive and refused forever
    const root = await tempDir();
    await plant(root, { pid: process.pid, host: hostname() }, 60_000);
    const lock = await acquireRootLock(root);
    expect((await holderOnDisk(root)).started).not.toBe('2026-01-01T00:00:00.000Z');
    await lock.release();
  });

  test('a fresh lock naming our own pid is taken over when it is not touched for the stale bound', async () => {
    const root = await tempDir();
    await plant(root, { pid: process.pid, host: hostname() });
    const lock = await acquireRootLock(root, Date.now, { staleMs: 600, updateMs: 300 });
    expect((await holderOnDisk(root)).pid).toBe(process.pid);
    await lock.release();
  });

  test('a lock naming another host (a recreated container) is taken over after the stale bound', async () => {
    const root = await tempDir();
    await plant(root, { pid: 1, host: 'gone-container.example' }, 30_000);
    const lock = await acquireRootLock(root);
    expect((await holderOnDisk(root)).host).toBe(hostname());
    await lock.release();

    await plant(root, { pid: 1, host: 'gone-container.example' });
    const again = await acquireRootLock(root, Date.now, { staleMs: 600, updateMs: 300 });
    expect((await holderOnDisk(root)).host).toBe(hostname());
    await again.release();
  });

  test.runIf(processIdentity().boot)('a holder whose process is gone from this machine is taken over at once', async () => {
    const root = await tempDir();
    const child = spawnChild(process.execPath, ['-e', '']);
    await new Promise((r) => child.once('exit', r));
    await plant(root, { pid: child.pid!, host: hostname(), ...processIdentity(), pidStart: '1' });
    // fresh, with an hour-long bound: only the dead-process rule can let this start
    const lock = await acquireRootLock(root, Date.now, { staleMs: HOUR });
    await lock.release();
    // and a live pid whose start time differs is a reused pid: the holder is gone too
    await plant(root, { pid: process.pid, host: hostname(), ...processIdentity(), pidStart: '1' });
    await (await acquireRootLock(root, Date.now, { staleMs: HOUR })).release();
  });

  test('a lock file of the earlier format is taken over once stale', async () => {
    const root = await tempDir();
    await writeFile(join(root, LOCK_FILE), JSON.stringify({ pid: process.pid, host: hostname(), started: '2026-01-01T00:00:00.000Z' }));
    const t = new Date(Date.now() - 60_000);
    await utimes(join(root, LOCK_FILE), t, t);
    const lock = await acquireRootLock(root);
    expect((await holderOnDisk(root)).pid).toBe(process.pid);
    await lock.release();
    expect(await readdir(root)).toEqual([]);
  });

  test('an empty lock folder (a removal cut short) is taken at once; a folder of unknown files is refused and kept', async () => {
    const root = await tempDir();
    await mkdir(join(root, LOCK_FILE));
    await (await acquireRootLock(root, Date.now, { staleMs: HOUR })).release();

    await mkdir(join(root, LOCK_FILE));
    await writeFile(join(root, LOCK_FILE, 'notes.txt'), 'mine');
    const err = await refusal(acquireRootLock(root, Date.now, { staleMs: HOUR }));
    expect(err).toBeInstanceOf(RootLockedError);
    expect(await readdir(join(root, LOCK_FILE))).toEqual(['notes.txt']);
  });

  test('FIFOs placed by hand are never waited on: at the lock path refused, as a holder file taken over once stale', async () => {
    const root = await tempDir();
    execFileSync('mkfifo', [join(root, LOCK_FILE)]);
    expect(await refusal(acquireRootLock(root))).toBeInstanceOf(RootLockedError);
    await rm(join(root, LOCK_FILE));
    await mkdir(join(root, LOCK_FILE));
    execFileSync('mkfifo', [join(root, LOCK_FILE, `holder-${'b'.repeat(32)}.json`)]);
    const t = new Date(Date.now() - 60_000);
    await utimes(join(root, LOCK_FILE), t, t);
    await (await acquireRootLock(root)).release();
    expect(await readdir(root)).toEqual([]);
  });

  test('a link at the lock path is refused and never followed', async () => {
    const root = await tempDir();
    const elsewhere = await tempDir();
    const nonce = await plant(elsewhere, { pid: 1, host: 'elsewhere.example' }, 60_000);
    await symlink(join(elsewhere, LOCK_FILE), join(root, LOCK_FILE));
    expect(await refusal(acquireRootLock(root))).toBeInstanceOf(RootLockedError);
    expect(await readdir(join(elsewhere, LOCK_FILE))).toEqual([`holder-${nonce}.json`]);
  });
});

describe('exactly one of several starters wins', () => {
  const STARTERS = 4;
  // takeovers are where two winners could happen (proper-lockfile's own takeover gives 4 in 200 rounds of this);
  // the full rounds run in `npm run test:proof`, `npm test` a short version (PROOF_ROUNDS, test/proof-helpers.ts)
  const scenarios: [string, number, (root: string) => Promise<unknown>][] = [
    ['no lock', scaled(50, 10), async () => {}],
    ['an empty lock folder', scaled(50, 10), (root) => mkdir(join(root, LOCK_FILE))],
    ['a stale lock', scaled(200, 20), (root) => plant(root, { pid: 1, host: 'elsewhere.example' }, 60_000)],
    ['a lock whose process is gone', scaled(200, 20), (root) => plant(root, { pid: 2 ** 22 + 1, host: hostname(), ...processIdentity() })],
  ];

  test.each(scenarios)(`over %s: ${STARTERS} concurrent starters × %i rounds`, async (_name, ROUNDS, setup) => {
    const root = await tempDir();
    const winners: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await setup(root);
      // one process's starters share what it holds, so a loser that sees a winner's lock refuses at once
      const held = new HeldLocks();
      const tries = await Promise.allSettled(Array.from({ length: STARTERS }, () => acquireRootLock(root, Date.now, { held })));
      const won = tries.filter((t) => t.status === 'fulfilled');
      winners.push(won.length);
      for (const t of tries) if (t.status === 'rejected') expect(t.reason).toBeInstanceOf(RootLockedError);
      for (const t of won) await t.value.release();
      expect(await readdir(root)).toEqual([]);
    }
    expect(winners.filter((n) => n !== 1)).toEqual([]);
  });
});

describe('a held lock that is lost', () => {
  test('is reported to the handler at the next refresh, and release then leaves the new holder alone', async () => {
    const root = await tempDir();
    let lost!: (root: string) => void;
    const reported = new Promise<string>((r) => (lost = r));
    const first = await acquireRootLock(root, Date.now, { updateMs: 300, onLost: (r) => lost(r) });
    // someone removes it by hand, and another server takes the root
    await rm(join(root, LOCK_FILE), { recursive: true });
    const second = await acquireRootLock(root, Date.now, { staleMs: HOUR });
    expect(await reported).toBe(root);
    await first.release();
    expect(existsSync(join(root, LOCK_FILE))).toBe(true);
    await second.release();
    expect(await readdir(root)).toEqual([]);
  });

  test('a refresh that meets the release is not reported as a lost lock', async () => {
    // a server that stops just as a refresh runs (its start kept the loop busy past the refresh's time)
    let reports = 0;
    // each try waits a refresh (300 ms): 5 in the full proof, 2 in `npm test`
    for (let i = 0; i < scaled(5, 2); i++) {
      const root = await tempDir();
      const lock = await acquireRootLock(root, Date.now, { updateMs: 300, onLost: () => reports++ });
      // made after the lock's refresh timer with the same delay, so it runs right after that one, while its checks are on their way
      await new Promise<void>((resolve, reject) => setTimeout(() => lock.release().then(resolve, reject), 300));
      // the refresh's checks finish within a few file-system calls
      await new Promise((r) => setTimeout(r, 50));
      expect(await readdir(root)).toEqual([]);
    }
    expect(reports).toBe(0);
  });

  test('the refresh timer never keeps a process alive, and the lock goes with the process', async () => {
    const root = await tempDir();
    const child = spawnChild(process.execPath, [
      '--input-type=module',
      '-e',
      `const { acquireRootLock } = await import(${JSON.stringify(ROOT_LOCK_JS)}); await acquireRootLock(${JSON.stringify(root)});`,
    ]);
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(0);
    expect(await readdir(root)).toEqual([]);
  });
});

describe('the opener passes in what the lock needs', () => {
  test('importing the module adds no exit listener', async () => {
    const child = spawnChild(process.execPath, [
      '--input-type=module',
      '-e',
      `const before = process.listenerCount('exit'); await import(${JSON.stringify(ROOT_LOCK_JS)}); console.log(process.listenerCount('exit') - before);`,
    ]);
    let out = '';
    child.stdout!.on('data', (d) => (out += String(d)));
    expect(await new Promise((r) => child.once('exit', r))).toBe(0);
    expect(out.trim()).toBe('0');
  });

  /** An exit stand-in that records what is hooked on it. */
  const hooks = () => {
    const listeners: (() => void)[] = [];
    const exit: ExitHooks = {
      on: (_e, l) => listeners.push(l),
      off: (_e, l) => listeners.splice(listeners.indexOf(l), 1),
    };
    return { exit, listeners };
  };

  test('the exit hook is on while the lock is held, removes it when run, and is off after release', async () => {
    const root = await tempDir();
    const { exit, listeners } = hooks();
    const lock = await acquireRootLock(root, Date.now, { exit });
    expect(listeners).toHaveLength(1);
    // the process exits: the hook removes the lock synchronously
    listeners[0]!();
    expect(await readdir(root)).toEqual([]);
    await lock.release();
    expect(listeners).toHaveLength(0);

    const again = await acquireRootLock(root, Date.now, { exit });
    await again.release();
    expect(listeners).toHaveLength(0);
    expect(await readdir(root)).toEqual([]);
  });

  test('a refused acquisition leaves no exit hook behind', async () => {
    const root = await tempDir();
    // touched every 300 ms: the refusal needs to see one touch
    const first = await acquireRootLock(root, Date.now, { updateMs: 300 });
    const { exit, listeners } = hooks();
    expect(await refusal(acquireRootLock(root, Date.now, { exit, staleMs: HOUR }))).toBeInstanceOf(RootLockedError);
    expect(listeners).toHaveLength(0);
    await first.release();
  });

  test('an open library hooks the lock on the process exit, and close takes the hook away', async () => {
    const fx = await fixture();
    // the lock's hook (HeldLocks.removeAll), told from any a library below it adds (proper-lockfile's own)
    const hooks = () => process.listeners('exit').filter((l) => l.name === 'removeAll');
    const before = hooks().length;
    const lib = await fx.open();
    expect(hooks()).toHaveLength(before + 1);
    // the process exits while the library is open: the hook removes the lock
    (hooks().at(-1) as () => void)();
    expect(await readdir(fx.root)).not.toContain(LOCK_FILE);
    await lib.close();
    expect(hooks()).toHaveLength(before);
  });

  test('a lock held by the same opener is refused at once; another opener waits for a touch', async () => {
    const root = await tempDir();
    const held = new HeldLocks();
    // an hour between touches: only the shared registry can refuse it
    const first = await acquireRootLock(root, Date.now, { held, updateMs: HOUR, staleMs: 2 * HOUR });
    expect(await refusal(acquireRootLock(root, Date.now, { held, staleMs: 2 * HOUR }))).toBeInstanceOf(RootLockedError);
    // another opener cannot tell it from a live holder's without a touch: still waiting after a while
    const other = acquireRootLock(root, Date.now, { staleMs: 2 * HOUR });
    const early = await Promise.race([other.then(() => 'settled', () => 'settled'), new Promise((r) => setTimeout(() => r('waiting'), 500))]);
    expect(early).toBe('waiting');
    await first.release();
    // the holder went: the waiter sees the lock gone and takes it
    await (await other).release();
    expect(await readdir(root)).toEqual([]);
  });
});
