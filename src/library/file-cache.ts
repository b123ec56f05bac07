import type { BigIntStats } from 'node:fs';
import { lstatOrNull, readNoFollow } from './fs-safe.js';
import { sha256Hex } from './markers.js';

/**
 * Reads operator files, remembering each one's bytes keyed on what proves it
 * unchanged (issue 5 §1): device, inode, size, mtime and ctime in
 * nanoseconds. A rename-into-place changes the inode; an in-place edit changes
 * mtime/ctime. The racy-git rule covers the rest: when the file was modified
 * within RACY_MS of the moment we read it, an edit in the same timestamp tick
 * could keep every stat field, so its bytes are hashed again until the file is
 * older than that.
 */
export const RACY_MS = 2_000;

export interface FileData {
  bytes: Buffer;
  text: string;
  /** lowercase hex sha256 of the bytes */
  hash: string;
}

export type CachedRead = { kind: 'missing' } | { kind: 'unreadable'; reason: string } | ({ kind: 'file' } & FileData);

interface Slot {
  key: string;
  mtimeMs: number;
  /** when (now()) the bytes were last proven current */
  verifiedAt: number;
  data: FileData;
}

function statKey(s: BigIntStats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

export class FileCache {
  private readonly slots = new Map<string, Slot>();
  /** how many reads hit the disk for bytes; tests and the bench read it */
  diskReads = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async read(path: string): Promise<CachedRead> {
    const st = await lstatOrNull(path).catch(() => undefined);
    if (st === undefined) return this.forget(path, { kind: 'unreadable', reason: 'stat failed' });
    if (st === null) return this.forget(path, { kind: 'missing' });
    if (st.isSymbolicLink()) return this.forget(path, { kind: 'unreadable', reason: 'a symbolic link (not followed)' });
    if (!st.isFile()) return this.forget(path, { kind: 'unreadable', reason: 'not a regular file' });
    const slot = this.slots.get(path);
    if (slot && slot.key === statKey(st) && slot.verifiedAt - slot.mtimeMs >= RACY_MS) return { kind: 'file', ...slot.data };
    return this.load(path, slot);
  }

  private async load(path: string, slot: Slot | undefined): Promise<CachedRead> {
    const verifiedAt = this.now();
    const r = await readNoFollow(path);
    this.diskReads++;
    if (r.kind !== 'file') return this.forget(path, r);
    const key = statKey(r.stat);
    const mtimeMs = Number(r.stat.mtimeNs / 1_000_000n);
    const hash = sha256Hex(r.bytes);
    // keep the old object when the bytes proved the same, so memos keyed on it stay warm
    const data = slot && slot.data.hash === hash ? slot.data : { bytes: r.bytes, text: r.bytes.toString('utf8'), hash };
    this.slots.set(path, { key, mtimeMs, verifiedAt, data });
    return { kind: 'file', ...data };
  }

  private forget(path: string, r: CachedRead): CachedRead {
    this.slots.delete(path);
    return r;
  }
}
