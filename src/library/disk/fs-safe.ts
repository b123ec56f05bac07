import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type BigIntStats } from 'node:fs';
import { access, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { DeskError } from '../../errors.js';
import { LIMITS } from '../../template/read.js';

/*
 * The library's file-system primitives, and the contract every caller gets
 * from them — whatever the read path above them does (docs/security.md, Odd
 * files). Files and folders in the root may be placed by hand, so:
 *
 * - Reads never block and never follow a link. Every open for reading is
 *   O_RDONLY|O_NOFOLLOW|O_NONBLOCK (a FIFO opens at once instead of waiting
 *   for a writer; a link fails with ELOOP), then fstat on the open handle:
 *   anything but a regular file is `unreadable`, closed unread.
 * - Reads are capped before a byte is read. The size comes from that fstat;
 *   over the file's cap (readCap: 128 KiB, the template cap, for everything
 *   but a role's files) the answer is `too_large` with the size, and nothing
 *   is read. At most the fstat'd size is read, so a file that grows after
 *   the stat is not read past it either.
 * - A read answers an outcome, never throws: `missing`, `file` (bytes and
 *   the handle's stat), `unreadable` (reason), `too_large` (size). Callers
 *   building entries list `unreadable` as `file.unreadable` and `too_large`
 *   as `limit.size`; bookkeeping readers (intents, markers, kept bases) count
 *   what is not a `file` as none, silently — recovery at start reports each
 *   such file once through `report` (its reasons are oddType and overCap).
 *   New code that reads a file under the root uses readNoFollow or
 *   readNoFollowSync, never fs.readFile.
 * - Folders on the read path (safeDirSync) answer null — "nothing to read
 *   here" — for a missing folder and also for one that is a link or not a
 *   folder, told once to `report`: a linked `templates/` hides only the
 *   operator's files, never the shipped ones. Folders on the write path
 *   (safeDir, safeTarget) throw: `symlink_refused` for a link,
 *   `library_unwritable` for anything else in the way.
 * - A root this process can never write (rootUnwritable: EROFS, EACCES,
 *   EPERM) is served read-only by openLibrary: no lock, no recovery, every
 *   write refused `library_unwritable` before any of these is called.
 */

/** The largest template the library reads: the format's size cap (src/template/read.ts). */
export const TEMPLATE_CAP = LIMITS.sizeBytes;
/** role.md and kit.json: a role saved through the API is within the request body cap (1 MiB, src/http/guard-server.ts). */
export const ROLE_FILE_CAP = 1024 * 1024;
/** A role's intent carries role.md and kit.json as JSON strings, which escaping can make up to six times longer. */
export const ROLE_INTENT_CAP = 8 * 1024 * 1024;

/**
 * The cap of the file at `path`, from its name and folder as the library lays
 * them out: a role's files and intent have their own (above), every other
 * file — templates, markers, template intents, kept bases — the template cap.
 */
export function readCap(path: string): number {
  const slash = path.lastIndexOf('/');
  const base = path.slice(slash + 1);
  if (base === 'role.md' || base === 'kit.json') return ROLE_FILE_CAP;
  if (base.endsWith('.intent') && path.slice(0, slash).endsWith('/roles')) return ROLE_INTENT_CAP;
  return TEMPLATE_CAP;
}

/** Something odd in the root, with its path under the root and why it is skipped. */
export interface OddFile {
  path: string;
  reason: string;
}

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
  /** Told about an odd file or folder a read skips (openLibrary logs each once). Default: none. */
  report?: ((odd: OddFile) => void) | undefined;
}

export function reportOdd(ctx: FsContext, path: string, reason: string): void {
  ctx.report?.({ path, reason });
}

export async function fault(ctx: FsContext, step: string): Promise<void> {
  if (ctx.faults) await ctx.faults(step);
}

/** errno codes meaning "this folder cannot take the write" rather than a bug (answered 507, docs/api.md). */
const UNWRITABLE: ReadonlySet<string> = new Set(['ENXIO', 'EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EIO', 'EMFILE', 'ENFILE', 'EBUSY', 'ENOTDIR', 'EISDIR', 'EFBIG']);

/** Turns an fs failure into DeskError('library_unwritable'); other errors pass through unchanged. */
export function mapFsError(e: unknown): unknown {
  if (e instanceof DeskError) return e;
  const code = (e as NodeJS.ErrnoException | null)?.code;
  // O_NOFOLLOW meeting a link that took a checked path's place since the check
  if (code === 'ELOOP') return new DeskError('symlink_refused', 'a path in the library became a symbolic link');
  if (code && UNWRITABLE.has(code)) return new DeskError('library_unwritable', `the library folder cannot be written (${code})`);
  return e;
}

/** errno codes of a root that this process can never write: served read-only rather than refused. */
const READ_ONLY_ROOT: ReadonlySet<string> = new Set(['EROFS', 'EACCES', 'EPERM']);

/** The errno when this process cannot write the root (a read-only mount, no permission), else null. */
export async function rootUnwritable(root: string): Promise<string | null> {
  try {
    await access(root, constants.W_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code && READ_ONLY_ROOT.has(code)) return code;
    throw e;
  }
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
 * a save makes a dozen on its way down from the root, and each costs save latency.
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
  | { kind: 'unreadable'; reason: string }
  | { kind: 'too_large'; size: number };

/** Every open for reading: never follows a link, never waits for a FIFO's writer. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** What a failed open or read means for the caller: gone, or there but not readable (O_NOFOLLOW on a link is ELOOP). */
function readFailure(e: unknown): ReadOutcome {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return { kind: 'missing' };
  if (code === 'ELOOP') return { kind: 'unreadable', reason: 'a symbolic link (not followed)' }; // as oddType says
  return { kind: 'unreadable', reason: code ?? 'read failed' };
}

/** Why something that is not a regular file is not read (a stat or a Dirent), or null for a regular file. */
export function oddType(s: { isFile(): boolean; isFIFO(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): string | null {
  if (s.isFile()) return null;
  if (s.isSymbolicLink()) return 'a symbolic link (not followed)';
  if (s.isFIFO()) return 'a FIFO (not read)';
  if (s.isDirectory()) return 'a folder';
  return 'not a regular file';
}

/** The reason of a file over its cap. */
export function overCap(size: number | bigint): string {
  return `${size} bytes, over the cap`;
}

/** What the open handle's stat says before any byte is read: null when the file may be read. */
function judge(stat: BigIntStats, maxBytes: number): ReadOutcome | null {
  const odd = oddType(stat);
  if (odd !== null) return { kind: 'unreadable', reason: odd };
  return stat.size > BigInt(maxBytes) ? { kind: 'too_large', size: Number(stat.size) } : null;
}

/** The bytes actually read into a buffer of the stat'd size: fewer when the file shrank meanwhile. */
function filled(buf: Buffer, n: number): Buffer {
  return n === buf.length ? buf : Buffer.from(buf.subarray(0, n));
}

/**
 * Reads a regular file without following a link or waiting on a FIFO, and
 * only when its size is within `maxBytes` (the contract above). The stat is
 * the open handle's, taken before the read, so a cache keyed on it can only
 * be too cautious.
 */
export async function readNoFollow(path: string, maxBytes = readCap(path)): Promise<ReadOutcome> {
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(path, READ_FLAGS);
    const stat = await fh.stat({ bigint: true });
    const odd = judge(stat, maxBytes);
    if (odd) return odd;
    // unpooled, as readFile's: a kept file must not hold a shared slab alive
    const buf = Buffer.allocUnsafeSlow(Number(stat.size));
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    return { kind: 'file', bytes: filled(buf, n), stat };
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

export type DirOutcome =
  | { kind: 'dir'; dir: string; stat: BigIntStats }
  | { kind: 'missing' }
  /** a link, not a folder, or not searchable, at `path` (under the root) */
  | { kind: 'refused'; path: string; reason: string };

/** The folder `root/segs…` for reading, each folder from the root down lstat'd; never throws. */
export function dirSync(ctx: FsContext, segs: readonly string[]): DirOutcome {
  let dir = ctx.root;
  let st: BigIntStats | null = null;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    checkSegment(seg);
    // a checked plain name under an absolute, realpath'd root: concatenation is the join
    dir = `${dir}/${seg}`;
    const path = segs.slice(0, i + 1).join('/');
    try {
      st = lstatSyncOrNull(dir);
    } catch (e) {
      return { kind: 'refused', path, reason: (e as NodeJS.ErrnoException).code ?? 'stat failed' };
    }
    if (!st) return { kind: 'missing' };
    if (st.isSymbolicLink()) return { kind: 'refused', path, reason: 'a symbolic link (not followed)' };
    if (!st.isDirectory()) return { kind: 'refused', path, reason: 'not a folder' };
  }
  return st ? { kind: 'dir', dir, stat: st } : { kind: 'missing' };
}

/**
 * The read path's folder: its path and lstat, or null when there is nothing
 * to read there — missing, or refused (a link, not a folder), which is told
 * to `report` and otherwise treated as missing, so the shipped entries still
 * list. Writes there go through safeDir, which refuses it.
 */
export function safeDirSync(ctx: FsContext, segs: readonly string[]): { dir: string; stat: BigIntStats } | null {
  const d = dirSync(ctx, segs);
  if (d.kind === 'refused') reportOdd(ctx, d.path, d.reason);
  return d.kind === 'dir' ? { dir: d.dir, stat: d.stat } : null;
}

export function readNoFollowSync(path: string, maxBytes = readCap(path)): ReadOutcome {
  let fd: number | undefined;
  try {
    fd = openSync(path, READ_FLAGS);
    const stat = fstatSync(fd, { bigint: true });
    const odd = judge(stat, maxBytes);
    if (odd) return odd;
    const buf = Buffer.allocUnsafeSlow(Number(stat.size));
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
    return { kind: 'file', bytes: filled(buf, n), stat };
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
