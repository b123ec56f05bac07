import { hostname } from 'node:os';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * One server holds a library root at a time (docs/operations.md, Two servers). The lock
 * is `<root>/.desk-library.lock`, created with O_EXCL and holding
 * `{pid, host, started}`. A lock whose process is gone from this host is
 * taken over; anything else refuses to start, naming the holder.
 */
export const LOCK_FILE = '.desk-library.lock';

/** A lock file written less than this long ago but not yet readable is a starter mid-write, not a crash. */
const UNREADABLE_GRACE_MS = 10_000;

export interface LockHolder {
  pid: number;
  host: string;
  started: string;
}

/** Startup error: another process holds the root. Not a DeskError — it never reaches HTTP. */
export class RootLockedError extends Error {
  readonly holder: LockHolder | null;
  readonly root: string;

  constructor(root: string, holder: LockHolder | null) {
    const who = holder ? `pid ${holder.pid} on ${holder.host} (since ${holder.started})` : 'an unknown process';
    super(`the library root ${root} is held by ${who}; stop it or use another root`);
    this.name = 'RootLockedError';
    this.root = root;
    this.holder = holder;
  }
}

export interface RootLock {
  readonly holder: LockHolder;
  release(): Promise<void>;
}

function parseHolder(text: string): LockHolder | null {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.host === 'string' && typeof v.started === 'string') {
      return { pid: v.pid, host: v.host, started: v.started };
    }
  } catch {
    // fall through: malformed
  }
  return null;
}

/** True when the holder is certainly gone: same host and kill(pid, 0) answers ESRCH. EPERM means alive. */
function holderIsGone(h: LockHolder): boolean {
  if (h.host !== hostname()) return false;
  try {
    process.kill(h.pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function tryCreate(path: string, holder: LockHolder): Promise<boolean> {
  try {
    const fh = await open(path, 'wx', 0o644);
    try {
      await fh.writeFile(JSON.stringify(holder) + '\n');
      await fh.sync();
    } finally {
      await fh.close();
    }
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/**
 * Takes the root's lock or throws RootLockedError. Taking over a stale lock
 * is unlink-then-O_EXCL: two starters racing over the same stale lock can
 * both pass the unlink, but only one O_EXCL create succeeds.
 */
export async function acquireRootLock(root: string, now: () => number = Date.now): Promise<RootLock> {
  const path = join(root, LOCK_FILE);
  const holder: LockHolder = { pid: process.pid, host: hostname(), started: new Date(now()).toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await tryCreate(path, holder)) return makeLock(path, holder);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    const current = parseHolder(text);
    if (current) {
      if (!holderIsGone(current)) throw new RootLockedError(root, current);
    } else {
      const age = now() - (await stat(path)).mtimeMs;
      if (age < UNREADABLE_GRACE_MS) throw new RootLockedError(root, null);
    }
    await unlink(path).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  }
  throw new RootLockedError(root, null);
}

function makeLock(path: string, holder: LockHolder): RootLock {
  let released = false;
  return {
    holder,
    async release() {
      if (released) return;
      released = true;
      // remove it only while it is still ours: a takeover may have replaced it
      const text = await readFile(path, 'utf8').catch(() => null);
      const current = text === null ? null : parseHolder(text);
      if (current && current.pid === holder.pid && current.host === holder.host && current.started === holder.started) {
        await unlink(path).catch(() => {});
      }
    },
  };
}
