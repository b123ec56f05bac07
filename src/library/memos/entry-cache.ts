import type { BigIntStats } from 'node:fs';
import type { TemplateEntry, TemplateFacts, TemplateOutline } from '../entries.js';

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

/** The stat fields that prove a file unchanged, compared as bigints. */
export interface StatKey {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

export interface Slot {
  /** copy, marker, intent; null: not there */
  keys: (StatKey | null)[];
  /** the newest change among them, in ms */
  changedMs: number;
  /** when they were read (now(), taken before the reads) */
  readAt: number;
  facts: TemplateFacts;
  /** the list's entry made from the facts and `outline`: plain data, shared, never changed */
  shown?: { outline: TemplateOutline; entry: TemplateEntry };
}

export function statKey(s: BigIntStats): StatKey {
  return { dev: s.dev, ino: s.ino, size: s.size, mtimeNs: s.mtimeNs, ctimeNs: s.ctimeNs };
}

/** The later of mtime and ctime in ms: the last moment the file could have changed. */
export function changedMs(s: BigIntStats): number {
  return Math.max(Number(s.mtimeNs / 1_000_000n), Number(s.ctimeNs / 1_000_000n));
}

function same(key: StatKey | null, st: BigIntStats | null): boolean {
  if (key === null || st === null) return key === st;
  return key.ino === st.ino && key.mtimeNs === st.mtimeNs && key.ctimeNs === st.ctimeNs && key.size === st.size && key.dev === st.dev;
}

export class EntryCache {
  private readonly slots = new Map<string, Slot>();

  /** The slot of `name`, when the stats of its copy, marker and intent (lstat'd now; null: not there) prove its facts, and they are old enough. */
  get(name: string, copy: BigIntStats | null, marker: BigIntStats | null, intent: BigIntStats | null): Slot | null {
    const slot = this.slots.get(name);
    if (!slot || slot.readAt - slot.changedMs < RACY_MS) return null;
    const k = slot.keys;
    return same(k[0]!, copy) && same(k[1]!, marker) && same(k[2]!, intent) ? slot : null;
  }

  /** `stats`: of the files read (the open handles'), `readAt` taken before reading them. */
  set(name: string, stats: readonly (BigIntStats | null)[], readAt: number, facts: TemplateFacts): Slot {
    let changed = 0;
    for (const s of stats) if (s) changed = Math.max(changed, changedMs(s));
    const slot: Slot = { keys: stats.map((s) => s && statKey(s)), changedMs: changed, readAt, facts };
    this.slots.set(name, slot);
    return slot;
  }

  /** The slot's entry for this outline: made once while the facts and the memo's outline are the same (thousands per list). */
  shown(slot: Slot, outline: TemplateOutline, make: (f: TemplateFacts, o: TemplateOutline) => TemplateEntry): TemplateEntry {
    if (slot.shown?.outline !== outline) slot.shown = { outline, entry: make(slot.facts, outline) };
    return slot.shown.entry;
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
