import { randomBytes } from 'node:crypto';
import * as fsCb from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { lock as properLock } from 'proper-lockfile';
import { type LockHolder, parseHolder, type ProcessIdentity, processIdentity, certainlyDead } from './lock-holder.js';

export type { LockHolder } from './lock-holder.js';

/**
 * One server holds a library root at a time (docs/operations.md, "Two
 * servers"). The lock is the folder `<root>/.desk-library.lock/`, made and
 * kept fresh by proper-lockfile: its mtime is touched every `updateMs`, and a
 * lock not touched for `staleMs` belongs to a holder that is gone, whatever
 * its PID or host name said (PID 1 again after a container restart, a
 * recreated container with a new host name). Inside is one file,
 * `holder-<nonce>.json`: the holder's pid, host and start time for the
 * refusal message, and a nonce that names this one lock.
 *
 * proper-lockfile's own stale takeover is rmdir-then-mkdir, and two starters
 * over one stale lock can both win with it (node-proper-lockfile issue #121:
 * B removes the lock A has just made). So every removal here goes through
 * the nonce: a lock folder is made whole by renaming a prepared folder into
 * place (a rename never lands on a folder that has a file in it), and a lock
 * is removed by unlinking its own `holder-<nonce>.json` first — which only
 * the one remover that still sees that nonce can do — and then the folder,
 * now empty. proper-lockfile's rmdir is given that same rule, which makes its
 * own takeover a no-op. Exactly one of any number of starters wins.
 *
 * proper-lockfile's refresh timer is unref'd: a held lock never keeps a
 * process alive. The timers of a starter's wait are not: a server waiting
 * for a lock has nothing else keeping it running.
 */
export const LOCK_FILE = '.desk-library.lock';

/**
 * Default 10 s, proper-lockfile's: long enough that a live holder is never
 * judged gone (it touches the lock every 2 s; only an event loop blocked for
 * 8 s, or a paused container, would miss it), short enough that a start after
 * a crash waits at most that long. Hosts sharing a root over a network file
 * system must keep their clocks within a second or two (NTP).
 */
export const STALE_MS = 10_000;
/** Default 2 s: a second server sees a live holder touch its lock, and refuses, within this. */
export const UPDATE_MS = 2_000;
const POLL_MS = 200;
const HOLDER = /^holder-([0-9a-f]{32})\.json$/;
const holderFile = (nonce: string) => `holder-${nonce}.json`;

export interface RootLockOptions {
  /** A lock untouched this long is taken over. Default STALE_MS; proper-lockfile's floor is 2 s. */
  staleMs?: number;
  /** How often the holder touches its lock. Default UPDATE_MS; proper-lockfile's floor is 1 s. */
  updateMs?: number;
  /**
   * What happens when the held lock is found taken or gone at a refresh
   * (another server took it over after this one stalled past the stale bound,
   * or someone deleted it). The library only reports it; the process shell
   * (src/server.ts) decides. Default: a process warning.
   */
  onLost?: LostHandler;
  /**
   * The locks this opener holds, shared by its acquisitions so that one of
   * its own is refused at once. Default: one for this acquisition alone.
   */
  held?: HeldLocks;
  /**
   * Where the exit hook goes: the opener passes `process` (openLibrary does),
   * so a lock still held when the process exits is removed. The hook is
   * added when the acquisition starts and removed at release or refusal.
   * Default: none — proper-lockfile's own hook still removes a lock once
   * lock() has returned.
   */
  exit?: ExitHooks;
  /** This machine's identity for the holder file and the "certainly dead" test (lock-holder.ts). Default: read now. */
  identity?: ProcessIdentity;
}

/** Startup error: another process holds the root. Not a DeskError — it never reaches HTTP. */
export class RootLockedError extends Error {
  readonly holder: LockHolder | null;
  readonly root: string;

  constructor(root: string, holder: LockHolder | null, why?: string) {
    const who = holder ? `pid ${holder.pid} on ${holder.host} (since ${holder.started})` : 'an unknown process';
    super(why ?? `the library root ${root} is held by ${who}; stop it or use another root`);
    this.name = 'RootLockedError';
    this.root = root;
    this.holder = holder;
  }
}

export interface RootLock {
  readonly holder: LockHolder;
  release(): Promise<void>;
}

export type LostHandler = (root: string, err: Error) => void;
/** The part of `process` the exit hook needs. */
export interface ExitHooks {
  on(event: 'exit', listener: () => void): unknown;
  off(event: 'exit', listener: () => void): unknown;
}
const warnLost: LostHandler = (root, err) => process.emitWarning(`the lock on ${root} was lost: ${err.message}`, 'RootLockLost');

/**
 * The locks an opener has made and not let go, nonce → path. One seen on
 * disk is refused at once, without waiting for a refresh. `removeAll` is
 * the opener's exit hook (openLibrary registers it on the process while the
 * library is open): it removes them however the process ends short of a
 * signal's default action or a crash — also in the moment between the
 * folder landing and lock() returning, which proper-lockfile's own exit hook
 * does not know about.
 */
export class HeldLocks {
  private readonly paths = new Map<string, string>();

  has(nonce: string): boolean {
    return this.paths.has(nonce);
  }

  add(nonce: string, path: string): void {
    this.paths.set(nonce, path);
  }

  delete(nonce: string): void {
    this.paths.delete(nonce);
  }

  /** Synchronous, for the process's 'exit' event; bound, so it can be passed as the listener itself. */
  readonly removeAll = (): void => {
    for (const [nonce, path] of this.paths) removeLockDirSync(path, nonce);
    this.paths.clear();
  };
}

type Seen =
  | { kind: 'none' | 'empty' }
  | { kind: 'odd'; what: string }
  | { kind: 'lock'; nonce: string | null; holder: LockHolder | null; mtimeMs: number; ino: number };

const code = (e: unknown) => (e as NodeJS.ErrnoException).code;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A holder file's text, or '' for anything that is not a small regular file (a FIFO is never waited on, a huge file never read). */
async function readSmall(path: string): Promise<string> {
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fsCb.constants;
  const fh = await open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch(() => null);
  if (!fh) return '';
  try {
    const st = await fh.stat();
    return st.isFile() && st.size <= 4096 ? await fh.readFile('utf8') : '';
  } finally {
    await fh.close();
  }
}

/** lstat, or null when nothing is there. */
const lstatOrNull = (path: string) => lstat(path).catch((e) => (code(e) === 'ENOENT' ? null : Promise.reject(e)));

/**
 * What is at the lock path now. A link is never followed (nothing outside the
 * root is read or removed). The folder is listed before its mtime is read, so
 * a nonce is never paired with an older lock's mtime; something that changes
 * meanwhile reads as none, and the next round looks again.
 */
async function inspect(path: string): Promise<Seen> {
  const first = await lstatOrNull(path);
  if (!first) return { kind: 'none' };
  if (first.isFile()) {
    // a lock file of an earlier version ({pid, host, started}), never touched after it was written
    const holder = parseHolder(await readSmall(path));
    return { kind: 'lock', nonce: null, holder, mtimeMs: first.mtimeMs, ino: first.ino };
  }
  if (!first.isDirectory()) return { kind: 'odd', what: 'neither a folder nor a file' };
  const names = await readdir(path).catch((e) => (code(e) === 'ENOENT' || code(e) === 'ENOTDIR' ? null : Promise.reject(e)));
  const st = await lstatOrNull(path);
  if (!names || !st?.isDirectory()) return { kind: 'none' };
  const name = names.find((n) => HOLDER.test(n));
  if (!name) return names.length === 0 ? { kind: 'empty' } : { kind: 'odd', what: 'a folder without a holder file' };
  const holder = parseHolder(await readSmall(join(path, name)));
  return { kind: 'lock', nonce: HOLDER.exec(name)![1]!, holder, mtimeMs: st.mtimeMs, ino: st.ino };
}

const sameLock = (a: Seen, b: Seen) =>
  a.kind === 'lock' && b.kind === 'lock' ? a.nonce === b.nonce && a.ino === b.ino && a.mtimeMs === b.mtimeMs : a.kind === b.kind;

/** Makes the lock folder whole or not at all: a prepared folder renamed into place, which fails on any lock that has its holder file. */
async function createLockDir(held: HeldLocks, path: string, nonce: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${nonce}`;
  await mkdir(tmp);
  try {
    await writeFile(join(tmp, holderFile(nonce)), text, { flag: 'wx' });
    await rename(tmp, path);
    held.add(nonce, path);
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    if (['ENOTEMPTY', 'EEXIST', 'ENOTDIR', 'EISDIR'].includes(code(e) ?? '')) throw Object.assign(new Error(`${path} exists`), { code: 'EEXIST' });
    throw e;
  }
}

/** Removes the lock named by `nonce` and nothing else: once the holder file is gone, a folder someone else renamed in is not empty. */
async function removeLockDir(held: HeldLocks, path: string, nonce: string): Promise<boolean> {
  try {
    await unlink(join(path, holderFile(nonce)));
    held.delete(nonce);
  } catch (e) {
    held.delete(nonce);
    if (code(e) === 'ENOENT' || code(e) === 'ENOTDIR') return false;
    throw e;
  }
  await rmdir(path).catch((e) => {
    if (code(e) !== 'ENOENT' && code(e) !== 'ENOTEMPTY') throw e;
  });
  return true;
}

function removeLockDirSync(path: string, nonce: string): void {
  try {
    fsCb.unlinkSync(join(path, holderFile(nonce)));
    fsCb.rmdirSync(path);
  } catch {
    // not ours any more, or already gone: nothing to do at exit
  }
}

/** The file system proper-lockfile works through, with this lock's own make and remove (it also runs rmdirSync at process exit). */
function lockFs(held: HeldLocks, nonce: string, text: string) {
  return {
    // Every look proper-lockfile takes (its refresh's "is it still mine?" above all) checks this
    // lock's own holder file first: an mtime alone can match another lock's, as its probe rounds
    // a new lock's mtime to the second, and a refresh would then touch the other lock.
    stat: (path: string, cb: (err: Error | null, st?: fsCb.Stats) => void) =>
      fsCb.stat(join(path, holderFile(nonce)), (err) => {
        if (err && (code(err) === 'ENOENT' || code(err) === 'ENOTDIR')) cb(Object.assign(err, { code: 'ENOENT' }));
        else if (err) cb(err);
        else fsCb.stat(path, cb);
      }),
    utimes: fsCb.utimes,
    realpath: fsCb.realpath,
    mkdir: (path: string, cb: (err: Error | null) => void) => void createLockDir(held, path, nonce, text).then(() => cb(null), cb),
    rmdir: (path: string, cb: (err: Error | null) => void) => void removeLockDir(held, path, nonce).then(() => cb(null), cb),
    rmdirSync: (path: string) => removeLockDirSync(path, nonce),
  };
}

/**
 * Takes the root's lock or throws RootLockedError naming the holder. A lock
 * found fresh is watched: touched again, or replaced, means its holder is
 * alive (refused, within `updateMs`); untouched for `staleMs`, or its holder
 * certainly dead on this machine (lock-holder.ts), it is taken over. A
 * folder at the lock path with no holder file is a removal cut short, taken
 * at once.
 */
export async function acquireRootLock(root: string, now: () => number = Date.now, options: RootLockOptions = {}): Promise<RootLock> {
  const held = options.held ?? new HeldLocks();
  const exit = options.exit;
  // before the folder can land, and for as long as the lock is held
  exit?.on('exit', held.removeAll);
  const unhook = () => void exit?.off('exit', held.removeAll);
  try {
    const lock = await takeRootLock(root, now, options, held);
    return {
      holder: lock.holder,
      release: () => lock.release().finally(unhook),
    };
  } catch (e) {
    unhook();
    throw e;
  }
}

async function takeRootLock(root: string, now: () => number, options: RootLockOptions, held: HeldLocks): Promise<RootLock> {
  const staleMs = options.staleMs ?? STALE_MS;
  const path = join(root, LOCK_FILE);
  const onLost = options.onLost ?? warnLost;
  const me = options.identity ?? processIdentity();
  const holder: LockHolder = { pid: process.pid, host: hostname(), started: new Date(now()).toISOString(), ...me };
  const nonce = randomBytes(16).toString('hex');
  let previous: Seen | null = null;
  // A refresh whose checks are on their way when the release removes the holder file finds the
  // folder changed: that is the release, not a loss, and is not reported.
  const state = { releasing: false };
  for (let round = 0; round < 8; round++) {
    try {
      const release = await properLock(root, {
        lockfilePath: path,
        stale: staleMs,
        update: options.updateMs ?? UPDATE_MS,
        realpath: false,
        fs: lockFs(held, nonce, JSON.stringify(holder) + '\n'),
        onCompromised: (err) => {
          held.delete(nonce);
          if (!state.releasing) onLost(root, err);
        },
      });
      return makeLock(holder, state, release);
    } catch (e) {
      if (code(e) !== 'ELOCKED') throw e;
    }
    let seen = await inspect(path);
    // a lock that appeared since we last looked was made by a starter alive a moment ago
    if (seen.kind === 'lock' && previous && !sameLock(previous, seen)) throw new RootLockedError(root, seen.holder);
    previous = seen;
    if (seen.kind === 'none' || seen.kind === 'empty') continue;
    if (seen.kind === 'odd') throw new RootLockedError(root, null, `${path} is ${seen.what}, not a lock this service made; remove it to start`);
    const watchedSince = Date.now();
    // untouched for staleMs by its mtime, or for as long by our own watch (an mtime in the future: a clock ahead, or a hand edit)
    const stale = (s: Seen & { kind: 'lock' }) => Date.now() - Math.min(s.mtimeMs, watchedSince) >= staleMs || certainlyDead(s.holder, me);
    while (seen.kind === 'lock' && !stale(seen)) {
      if (seen.nonce && held.has(seen.nonce)) throw new RootLockedError(root, seen.holder);
      await sleep(POLL_MS);
      const next = await inspect(path);
      if (next.kind === 'lock' && !sameLock(seen, next)) throw new RootLockedError(root, next.holder);
      seen = next;
    }
    if (seen.kind !== 'lock') continue;
    // stale: remove exactly this lock; if another starter got there first, the next round sees its lock and refuses
    if (seen.nonce) await removeLockDir(held, path, seen.nonce);
    else await unlink(path).catch(() => {}); // an earlier version's file; unlink never removes a lock folder
  }
  throw new RootLockedError(root, previous?.kind === 'lock' ? previous.holder : null);
}

function makeLock(holder: LockHolder, state: { releasing: boolean }, release: () => Promise<void>): RootLock {
  return {
    holder,
    async release() {
      if (state.releasing) return;
      state.releasing = true;
      // ERELEASED: it was lost (onCompromised) and is not ours to remove
      await release().catch((e) => {
        if (code(e) !== 'ERELEASED') throw e;
      });
    },
  };
}
