import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, type BigIntStats } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { DeskError } from '../errors.js';

/**
 * Called with a step name before every file-system step of a write
 * (e.g. `copy:rename`). Tests make it throw to cut a write at that instant,
 * as a crash would; production passes none.
 */
export type FaultHook = (step: string) => void | Promise<void>;

/** What every write needs: the realpath'd library root and the fault hook. */
export interface FsContext {
  root: string;
  faults?: FaultHook | undefined;
}

export async function fault(ctx: FsContext, step: string): Promise<void> {
  if (ctx.faults) await ctx.faults(step);
}

/** errno codes meaning "this folder cannot take the write" rather than a bug (answered 507, docs/api.md). */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EIO', 'EMFILE', 'ENFILE', 'EBUSY', 'ENOTDIR', 'EISDIR', 'EFBIG']);

/** Turns an fs failure into DeskError('library_unwritable'); other errors pass through unchanged. */
export function mapFsError(e: unknown): unknown {
  if (e instanceof DeskError) return e;
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (code && UNWRITABLE.has(code)) return new DeskError('library_unwritable', `the library folder cannot be written (${code})`);
  return e;
}

/**
 * Path segments are checked one by one so a name can never climb out of the
 * root: callers pass names already matched against the name patterns, and
 * this is the second fence.
 */
function checkSegment(seg: string): void {
  if (seg === '' || seg === '.' || seg === '..' || seg.includes('/') || seg.includes('\\') || seg.includes('\0')) {
    throw new DeskError('invalid_name', 'a path segment is not a plain name');
  }
}

/** Flushes a folder's entries (a rename or unlink in it) to disk. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Synchronous underneath, like the read path's stats (below): a local lstat
 * takes microseconds, less than the promise API's thread-pool round trip, and
 * a save makes a dozen on its way down from the root (issue 5: save latency).
 */
export async function lstatOrNull(path: string): Promise<BigIntStats | null> {
  return lstatSyncOrNull(path);
}

/**
 * The folder `root/segs…`, with every folder from the root down lstat'd: a
 * link anywhere is refused, never followed (docs/operations.md, Links). Missing folders are
 * created when `create` is set, else the answer is null.
 */
export async function safeDir(ctx: FsContext, segs: readonly string[], create: boolean): Promise<string | null> {
  let dir = ctx.root;
  for (const seg of segs) {
    checkSegment(seg);
    dir = join(dir, seg);
    let st = await lstatOrNull(dir);
    if (!st) {
      if (!create) return null;
      try {
        await mkdir(dir);
        // the new folder's entry must survive a crash before the files in it do
        await fsyncDir(join(dir, '..'));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw mapFsError(e);
      }
      st = lstatSync(dir, { bigint: true });
    }
    if (st.isSymbolicLink()) throw new DeskError('symlink_refused', `${segs.join('/')} passes through a symbolic link`);
    if (!st.isDirectory()) throw new DeskError('library_unwritable', `${segs.join('/')} is not a folder`);
  }
  return dir;
}

/** The target file's path under a checked folder, refusing a link in its place. */
export async function safeTarget(ctx: FsContext, segs: readonly string[], createDirs: boolean): Promise<{ dir: string; path: string } | null> {
  const base = segs[segs.length - 1]!;
  checkSegment(base);
  const dir = await safeDir(ctx, segs.slice(0, -1), createDirs);
  if (dir === null) return null;
  const path = join(dir, base);
  const st = await lstatOrNull(path);
  if (st?.isSymbolicLink()) throw new DeskError('symlink_refused', `${segs.join('/')} is a symbolic link`);
  if (st && !st.isFile()) throw new DeskError('library_unwritable', `${segs.join('/')} is not a regular file`);
  return { dir, path };
}

export type ReadOutcome =
  | { kind: 'missing' }
  | { kind: 'file'; bytes: Buffer; stat: BigIntStats }
  | { kind: 'unreadable'; reason: string };

/** What a failed open or read means for the caller: gone, or there but not readable (O_NOFOLLOW on a link is ELOOP). */
function readFailure(e: unknown): ReadOutcome {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return { kind: 'missing' };
  if (code === 'ELOOP') return { kind: 'unreadable', reason: 'a symbolic link (not followed)' };
  return { kind: 'unreadable', reason: code ?? 'read failed' };
}

/**
 * Reads a regular file without following a link: O_NOFOLLOW closes the gap
 * between the caller's lstat and the open. The stat is the open handle's,
 * taken before the read, so a cache keyed on it can only be too cautious.
 */
export async function readNoFollow(path: string): Promise<ReadOutcome> {
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const stat = await fh.stat({ bigint: true });
    if (!stat.isFile()) return { kind: 'unreadable', reason: 'not a regular file' };
    const bytes = await fh.readFile();
    return { kind: 'file', bytes, stat };
  } catch (e) {
    return readFailure(e);
  } finally {
    await fh?.close().catch(() => {});
  }
}

/**
 * The read path's synchronous twins of lstatOrNull, safeDir and readNoFollow.
 * A stat or a small read of a local file takes microseconds, less than the
 * thread-pool round trip of the promise API, and the list does one per file;
 * callers that loop over many files yield to the event loop between slices
 * (the list of thousands must stay responsive).
 */
export function lstatSyncOrNull(path: string): BigIntStats | null {
  return lstatSync(path, { bigint: true, throwIfNoEntry: false }) ?? null;
}

/** safeDir without create: the folder and its lstat, or null when missing; a link on the way is refused. */
export function safeDirSync(ctx: FsContext, segs: readonly string[]): { dir: string; stat: BigIntStats } | null {
  let dir = ctx.root;
  let st: BigIntStats | null = null;
  for (const seg of segs) {
    checkSegment(seg);
    // a checked plain name under an absolute, realpath'd root: concatenation is the join
    dir = `${dir}/${seg}`;
    st = lstatSyncOrNull(dir);
    if (!st) return null;
    if (st.isSymbolicLink()) throw new DeskError('symlink_refused', `${segs.join('/')} passes through a symbolic link`);
    if (!st.isDirectory()) throw new DeskError('library_unwritable', `${segs.join('/')} is not a folder`);
  }
  return st ? { dir, stat: st } : null;
}

export function readNoFollowSync(path: string): ReadOutcome {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile()) return { kind: 'unreadable', reason: 'not a regular file' };
    const bytes = readFileSync(fd);
    return { kind: 'file', bytes, stat };
  } catch (e) {
    return readFailure(e);
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // nothing to do: the bytes are read
      }
    }
  }
}
