import type { BigIntStats } from 'node:fs';
import { lstatSyncOrNull, readNoFollowSync } from './fs-safe.js';
import { sha256Hex } from './markers.js';
import { markUsed } from './recent.js';

/**
 * Reads operator files, remembering each one's bytes keyed on what proves it
 * unchanged: device, inode, size, mtime and ctime in
 * nanoseconds. A rename-into-place changes the inode; an in-place edit changes
 * mtime/ctime; restoring the mtime by hand (utimes) still moves ctime. The
 * racy-git rule covers the rest: timestamps come from a coarse kernel clock,
 * so an edit in the same tick as our read could keep every stat field. While
 * the file's last change (the later of mtime and ctime) is within RACY_MS of
 * the moment we read it, its bytes are read and hashed again on every call;
 * once older, a stat alone proves them current.
 */
export const RACY_MS = 2_000;

export interface FileData {
  readonly bytes: Buffer;
  /** the bytes as UTF-8 text */
  readonly text: string;
  /** lowercase hex sha256 of the bytes */
  hash: string;
}

export type CachedRead = { kind: 'missing' } | { kind: 'unreadable'; reason: string } | ({ kind: 'file' } & FileData);

/**
 * Thrown when a file's bytes, dropped from memory and read again, no longer
 * hash to what was kept: the file changed since its stat. The caller looks
 * again (template-entries.ts retries), and the new stat or the racy rule
 * sees the change.
 */
export class FileChanged extends Error {
  constructor(readonly path: string) {
    super(`${path} changed while it was read`);
  }
}

/** How many files keep their bytes in memory; the rest keep their hash and stat alone (issue 5: RSS at 10,000). */
export const BYTES_KEPT = 256;

/**
 * A read file as the cache keeps it: its hash always; its bytes only while
 * among the BYTES_KEPT most recently used, read again from disk when asked
 * after that — and checked against the hash, so they are the bytes the hash
 * proved. Thousands of listed templates need their hash alone once their
 * validation's outline is kept.
 */
class FileRead {
  readonly kind = 'file' as const;
  /** null once dropped from memory */
  kept: Buffer | null;
  constructor(
    bytes: Buffer,
    readonly hash: string,
    readonly path: string,
    private readonly cache: FileCache,
  ) {
    this.kept = bytes;
  }

  get bytes(): Buffer {
    return this.cache.bytesOf(this);
  }

  get text(): string {
    return this.bytes.toString('utf8');
  }
}

/** What proves a file or folder unchanged: identity, size and both timestamps, compared as bigints (no string is built). */
export interface StatKey {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

interface Slot {
  key: StatKey;
  /** the later of mtime and ctime, in ms */
  changedMs: number;
  /** when (now()) the bytes were last proven current; taken before they were read */
  verifiedAt: number;
  read: FileRead;
}

export function statKey(s: BigIntStats): StatKey {
  return { dev: s.dev, ino: s.ino, size: s.size, mtimeNs: s.mtimeNs, ctimeNs: s.ctimeNs };
}

/** The later of mtime and ctime in ms: the last moment the file could have changed. */
export function changedMs(s: BigIntStats): number {
  return Math.max(Number(s.mtimeNs / 1_000_000n), Number(s.ctimeNs / 1_000_000n));
}

/** The racy rule shared with the folder listings (dir-cache.ts): a stat proves nothing about a change this recent. */
export function trusted(key: StatKey, changed: number, verifiedAt: number, st: BigIntStats): boolean {
  return (
    verifiedAt - changed >= RACY_MS &&
    key.ino === st.ino &&
    key.mtimeNs === st.mtimeNs &&
    key.ctimeNs === st.ctimeNs &&
    key.size === st.size &&
    key.dev === st.dev
  );
}

export class FileCache {
  private readonly slots = new Map<string, Slot>();
  /** the reads holding their bytes, least recently used first */
  private readonly withBytes = new Set<FileRead>();
  /** how many reads hit the disk for bytes; tests and the bench read it */
  diskReads = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Kept for callers that await; the work is synchronous (see fs-safe.ts). */
  async read(path: string): Promise<CachedRead> {
    return this.readSync(path);
  }

  /** One lstat when the file is unchanged and old enough; otherwise a read and a hash. */
  readSync(path: string): CachedRead {
    let st: BigIntStats | null;
    try {
      st = lstatSyncOrNull(path);
    } catch {
      return this.forget(path, { kind: 'unreadable', reason: 'stat failed' });
    }
    if (st === null) return this.forget(path, { kind: 'missing' });
    const slot = this.slots.get(path);
    // a slot only ever holds a regular file, and a matching inode and ctime mean it still is one
    if (slot && trusted(slot.key, slot.changedMs, slot.verifiedAt, st)) return slot.read;
    if (st.isSymbolicLink()) return this.forget(path, { kind: 'unreadable', reason: 'a symbolic link (not followed)' });
    if (!st.isFile()) return this.forget(path, { kind: 'unreadable', reason: 'not a regular file' });
    return this.load(path, slot);
  }

  private load(path: string, slot: Slot | undefined): CachedRead {
    const verifiedAt = this.now();
    const r = readNoFollowSync(path);
    this.diskReads++;
    if (r.kind !== 'file') return this.forget(path, r);
    const hash = sha256Hex(r.bytes);
    // keep the old object when the bytes proved the same, so memos keyed on it stay warm
    const read = slot && slot.read.hash === hash ? slot.read : new FileRead(r.bytes, hash, path, this);
    if (read.kept === null) read.kept = r.bytes;
    this.touch(read);
    this.slots.set(path, { key: statKey(r.stat), changedMs: changedMs(r.stat), verifiedAt, read });
    return read;
  }

  /** A read's bytes: kept, or read again and proven by the hash (FileChanged when they no longer match). */
  bytesOf(read: FileRead): Buffer {
    if (read.kept === null) {
      const r = readNoFollowSync(read.path);
      this.diskReads++;
      if (r.kind !== 'file' || sha256Hex(r.bytes) !== read.hash) throw new FileChanged(read.path);
      read.kept = r.bytes;
    }
    this.touch(read);
    return read.kept;
  }

  private touch(read: FileRead): void {
    const dropped = markUsed(this.withBytes, read, BYTES_KEPT);
    if (dropped) dropped.kept = null;
  }

  private forget(path: string, r: CachedRead): CachedRead {
    this.slots.delete(path);
    return r;
  }
}
