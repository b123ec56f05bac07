import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { DeskError } from '../../errors.js';
import { type FsContext, fault, fsyncDir, lstatOrNull, mapFsError, safeDir, safeTarget } from './fs-safe.js';

/**
 * Durable writes inside the library root (docs/operations.md, The library root on disk). Written by
 * hand rather than with write-file-atomic because that package follows links,
 * and every path here must be lstat-checked from the root down first.
 *
 * Each step is announced to the fault hook as `<step>:<phase>`; the phases in
 * order are open, write, fsync, rename, fsync-dir (and cleanup on failure).
 */

/** Prefix of every temporary file; recovery removes leftovers and listing never shows them. */
export const TEMP_PREFIX = '.tmp-';

/** temp file in the same folder → write → fsync → rename over the target → fsync the folder. */
export async function writeFileAtomic(ctx: FsContext, segs: readonly string[], data: string | Buffer, step: string): Promise<void> {
  const target = await safeTarget(ctx, segs, true);
  if (!target) throw new DeskError('library_unwritable', 'the library folder is missing');
  const tmp = await writeTemp(ctx, target.dir, segs[segs.length - 1]!, data, step);
  await renameTemp(ctx, tmp, target.path, step);
  await flushDir(ctx, target.dir, `${step}:fsync-dir`);
}

/**
 * A whole file at a path outside the library root's checked folders (a
 * journal in `.git`, the users file): a temp file beside it, written and
 * flushed, renamed over it, the folder flushed. A reader finds the old file
 * or the new one, never part of one, and the new one survives a crash once
 * this returns. Errors are the file system's own; the temp file is removed.
 */
export async function writeDurable(path: string, data: string, mode = 0o644): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `${TEMP_PREFIX}${basename(path)}-${randomBytes(6).toString('hex')}`);
  try {
    const fh = await open(tmp, 'wx', mode);
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => {});
    throw e;
  }
  await fsyncDir(dir);
}

/**
 * The first half of writeFileAtomic: a flushed temp file beside `base` in
 * `dir` (a folder the caller has checked), not yet visible under its name.
 * Returns the temp path; on failure the temp file is removed (best effort).
 */
export async function writeTemp(ctx: FsContext, dir: string, base: string, data: string | Buffer, step: string): Promise<string> {
  const tmp = join(dir, `${TEMP_PREFIX}${base}-${randomBytes(6).toString('hex')}`);
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  let created = false;
  try {
    await fault(ctx, `${step}:open`);
    fh = await open(tmp, 'wx', 0o644);
    created = true;
    await fault(ctx, `${step}:write`);
    await fh.writeFile(data);
    await fault(ctx, `${step}:fsync`);
    await fh.sync();
    await fh.close();
    fh = undefined;
    return tmp;
  } catch (e) {
    await fh?.close().catch(() => {});
    if (created) await cleanup(ctx, tmp, step);
    throw mapFsError(e);
  }
}

/** The second half: the temp file renamed over the target. The caller flushes the folder. */
export async function renameTemp(ctx: FsContext, tmp: string, path: string, step: string): Promise<void> {
  try {
    await fault(ctx, `${step}:rename`);
    await rename(tmp, path);
  } catch (e) {
    await cleanup(ctx, tmp, step);
    throw mapFsError(e);
  }
}

/**
 * Writes a file in place and flushes it — only for a file whose reader can
 * tell a torn one (a checksum), since a crash can leave any prefix. The
 * caller flushes the folder when the file is new.
 */
export async function writeInPlace(ctx: FsContext, path: string, data: string | Buffer, step: string): Promise<void> {
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    await fault(ctx, `${step}:open`);
    // the caller's safeTarget found a regular file or none; should a FIFO or a link take its place
    // since, the open fails (ENXIO, ELOOP) rather than wait for a reader or write through the link
    fh = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
    if (!(await fh.stat()).isFile()) throw new DeskError('library_unwritable', 'an intent path is not a regular file');
    await fault(ctx, `${step}:write`);
    await fh.writeFile(data);
    await fault(ctx, `${step}:fsync`);
    await fh.sync();
  } catch (e) {
    throw mapFsError(e);
  } finally {
    await fh?.close().catch(() => {});
  }
}

/** Flushes a folder's renames, creations and removals (the step name is given whole). */
export async function flushDir(ctx: FsContext, dir: string, step: string): Promise<void> {
  try {
    await fault(ctx, step);
    await fsyncDir(dir);
  } catch (e) {
    throw mapFsError(e);
  }
}

/** Removes a temp file that will not be renamed (best effort; recovery removes what is left). */
export async function discardTemp(ctx: FsContext, tmp: string, step: string): Promise<void> {
  await cleanup(ctx, tmp, step);
}

async function cleanup(ctx: FsContext, tmp: string, step: string): Promise<void> {
  try {
    // a simulated crash makes this throw too, leaving the temp file for recovery
    await fault(ctx, `${step}:cleanup`);
    await unlink(tmp);
  } catch {
    // best effort: recovery at the next start removes any `.tmp-*`
  }
}

/** Removes a file if present and flushes its folder; true when something was removed. */
export async function removeFileDurable(ctx: FsContext, segs: readonly string[], step: string): Promise<boolean> {
  const target = await safeTarget(ctx, segs, false);
  if (!target) return false;
  if (!(await lstatOrNull(target.path))) return false;
  try {
    await fault(ctx, `${step}:unlink`);
    await unlink(target.path);
    await fault(ctx, `${step}:fsync-dir`);
    await fsyncDir(target.dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw mapFsError(e);
  }
  return true;
}

/** Removes a folder and what is in it (links inside are removed, never followed), then flushes its parent. */
export async function removeTreeDurable(ctx: FsContext, segs: readonly string[], step: string): Promise<boolean> {
  const dir = await safeDir(ctx, segs, false);
  if (!dir) return false;
  try {
    await fault(ctx, `${step}:rm`);
    await rm(dir, { recursive: true, force: true });
    await fault(ctx, `${step}:fsync-dir`);
    await fsyncDir(join(dir, '..'));
  } catch (e) {
    throw mapFsError(e);
  }
  return true;
}
