import type { BigIntStats } from 'node:fs';
import type { TemplateFacts } from '../entries.js';

/**
 * What the list knows of each operator template without reading it: the
 * facts (state, ETag) worked out from its copy, marker and intent, keyed on
 * those three files' stats — device, inode, size, mtime and ctime in
 * nanoseconds, or "not there". A rename-into-place changes the inode, an
 * edit in place mtime and ctime, and resetting mtime by hand (utimes) still
 * moves ctime.
 *
 * The racy rule: timestamps come from a coarse kernel clock, so an edit in
 * the same tick as our read could leave every stat field as it was. While
 * the newest change among the three files (the later of mtime and ctime) is
 * within RACY_MS of the moment they were read, the stats prove nothing and
 * the files are read again at every look; once older, the stats alone do.
 * The bytes are never kept: the validation's outline comes from the memo,
 * keyed on the copy's hash (validation-memo.ts).
 */
export const RACY_MS = 2_000;

/**
 * One slot per listed operator template, so each is kept small (RSS after
 * listing 10,000): the stats as one flat string, not 15 BigInts in objects,
 * and no list entry of its own — the list makes its entries afresh, an
 * object each, from these facts and the memo's outline.
 */
export interface Slot {
  /** the stats of the copy, marker and intent as read (statsKey) */
  key: string;
  /** the newest change among the three was RACY_MS older than their read: the stats prove the facts */
  proves: boolean;
  facts: TemplateFacts;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The same digits either way; a number's are written several times faster than a bigint's (the warm list writes 5 per file). */
const digits = (x: bigint): bigint | number => (x <= SAFE ? Number(x) : x);

/**
 * The fields that prove files unchanged — inode, size, mtime and ctime in
 * ns, device — as one string, `-` for a file not there. Exact: every field
 * written out in full (a ns time does not fit a double, so it stays a
 * bigint). Joined, so the string is flat and costs no pieces of its own.
 */
export function statsKey(copy: BigIntStats | null, marker: BigIntStats | null, intent: BigIntStats | null): string {
  const f: (bigint | number | string)[] = [];
  for (const s of [copy, marker, intent]) {
    if (s === null) f.push('-');
    else f.push(digits(s.ino), digits(s.size), s.mtimeNs, s.ctimeNs, digits(s.dev));
  }
  return f.join(' ');
}

/** The later of mtime and ctime in ms: the last moment the file could have changed. */
export function changedMs(s: BigIntStats): number {
  return Math.max(Number(s.mtimeNs / 1_000_000n), Number(s.ctimeNs / 1_000_000n));
}

export class EntryCache {
  private readonly slots = new Map<string, Slot>();

  /** The slot of `name`, when the stats of its copy, marker and intent (lstat'd now; null: not there) prove its facts, and they are old enough. */
  get(name: string, copy: BigIntStats | null, marker: BigIntStats | null, intent: BigIntStats | null): Slot | null {
    const slot = this.slots.get(name);
    if (!slot?.proves) return null;
    return slot.key === statsKey(copy, marker, intent) ? slot : null;
  }

  /** `stats`: of the copy, marker and intent read (the open handles'), `readAt` taken before reading them. */
  set(name: string, stats: readonly (BigIntStats | null)[], readAt: number, facts: TemplateFacts): Slot {
    let changed = 0;
    for (const s of stats) if (s) changed = Math.max(changed, changedMs(s));
    const slot: Slot = { key: statsKey(stats[0] ?? null, stats[1] ?? null, stats[2] ?? null), proves: readAt - changed >= RACY_MS, facts };
    this.slots.set(name, slot);
    return slot;
  }

  /** Whether anything is kept for `name` (before stat'ing its files to prove it). */
  has(name: string): boolean {
    return this.slots.has(name);
  }

  forget(name: string): void {
    this.slots.delete(name);
  }

  /** Forgets the names no longer in the catalogue. */
  prune(templates: ReadonlySet<string>): void {
    for (const name of this.slots.keys()) if (!templates.has(name)) this.slots.delete(name);
  }
}
