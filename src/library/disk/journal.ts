import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JOURNAL } from '../layout.js';
import { writeDurable } from './atomic-write.js';
import { sha256Hex } from './markers.js';

/**
 * The journal (docs/architecture.md, "Crash records"): one folder at the
 * top of the library root, `layout.ts` JOURNAL, holding what a crash must
 * finish at the next start — a sync round, an upgrade, the commits queued.
 * Not under `.git/`, so it is the same place whether history is on or not;
 * its entries end in `.intent`, which the root's `.gitignore` keeps out of
 * history (history/repo.ts), and no sync reads or writes a path outside a
 * name's files (layout.ts unitOf), so it is never committed or synced.
 *
 * One entry format, whatever the kind:
 *
 *     <kind>
 *     <the body, JSON on one line>
 *     sum <sha256 of the two lines above, newlines included>
 *
 * The sum makes an entry self-verifying: a torn one (any prefix, or zeros)
 * and one of another kind read as none. Each kind picks how durable its
 * write is: an entry a start must find (a round, an upgrade) is flushed and
 * renamed into place with its folder flushed (`writeEntryDurable`); a queued
 * commit is renamed without a flush (`writeEntryQuick`, history/journal.ts
 * says why). A template's or a role's intent is not here: it stays beside
 * its files (disk/intents.ts), where readers look for it.
 */

export type EntryKind = 'commit' | 'landing' | 'round' | 'upgrade';

/** Every entry's name ends so: the root's `.gitignore` already keeps `*.intent` out of history. */
export const ENTRY_SUFFIX = '.intent';

export const journalDir = (root: string): string => join(root, JOURNAL);

export function formatEntry(kind: EntryKind, body: unknown): string {
  const head = `${kind}\n${JSON.stringify(body)}\n`;
  return `${head}sum ${sha256Hex(head)}\n`;
}

/** The body of an entry of `kind`, or null for a torn, foreign or other-kind one. */
export function parseEntry(text: string, kind: EntryKind): unknown {
  const lines = text.split('\n');
  if (lines.length !== 4 || lines[3] !== '' || lines[0] !== kind) return null;
  const head = `${lines[0]}\n${lines[1]}\n`;
  if (lines[2] !== `sum ${sha256Hex(head)}`) return null;
  try {
    return JSON.parse(lines[1]!) as unknown;
  } catch {
    return null;
  }
}

/** Flushed, renamed into place, and the folder flushed: on disk before it returns. */
export async function writeEntryDurable(root: string, name: string, kind: EntryKind, body: unknown): Promise<void> {
  mkdirSync(journalDir(root), { recursive: true });
  await writeDurable(join(journalDir(root), name), formatEntry(kind, body));
}

/** Renamed into place, not flushed: survives a process crash, not a power loss. Throws when it cannot be written. */
export function writeEntryQuick(root: string, name: string, kind: EntryKind, body: unknown): void {
  const dir = journalDir(root);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.tmp-${name}`);
  writeFileSync(tmp, formatEntry(kind, body));
  renameSync(tmp, join(dir, name));
}

/** The entry's body, or null when it is absent or not a whole entry of `kind`. */
export function readEntry(root: string, name: string, kind: EntryKind): unknown {
  try {
    return parseEntry(readFileSync(join(journalDir(root), name), 'utf8'), kind);
  } catch {
    return null;
  }
}

/** Gone once it returns (unflushed: an entry that comes back after a crash is finished again, and finds nothing left to do). */
export function removeEntry(root: string, name: string): void {
  try {
    unlinkSync(join(journalDir(root), name));
  } catch {
    // gone already, or unwritable: the next start finds it done
  }
}

/** The entry names starting `prefix`, sorted (temp files aside). */
export function listEntries(root: string, prefix: string): string[] {
  try {
    return readdirSync(journalDir(root))
      .filter((n) => n.startsWith(prefix) && n.endsWith(ENTRY_SUFFIX))
      .sort();
  } catch {
    return [];
  }
}

/** Temp files a crash left mid-write; at start, under the root's lock, nobody else writes here. */
export function sweepJournal(root: string): void {
  let names: string[];
  try {
    names = readdirSync(journalDir(root));
  } catch {
    return;
  }
  for (const n of names) if (n.startsWith('.tmp-')) removeEntry(root, n);
}
