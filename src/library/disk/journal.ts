import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeskError } from '../../errors.js';
import { JOURNAL } from '../layout.js';
import { writeDurable } from './atomic-write.js';
import { fsyncDir } from './fs-safe.js';
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

/** The journal's folder when it is a real one; null when missing, or a link or file placed by hand: nothing is read or removed through it. */
function realDir(root: string): string | null {
  const dir = journalDir(root);
  return lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() ? dir : null;
}

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

/**
 * The journal's folder, made when missing (true then). One placed by hand
 * that is a link or a file is refused, never followed (docs/operations.md,
 * Links): the write that needed it fails, naming it.
 */
function ensureDir(root: string): boolean {
  const st = lstatSync(journalDir(root), { throwIfNoEntry: false });
  if (!st) {
    mkdirSync(journalDir(root));
    return true;
  }
  if (st.isSymbolicLink()) throw new DeskError('symlink_refused', `${JOURNAL} is a symbolic link`);
  if (!st.isDirectory()) throw new DeskError('library_unwritable', `${JOURNAL} is not a folder`);
  return false;
}

/** Flushed, renamed into place, and the folder flushed (the root too, when the folder is new): on disk before it returns. */
export async function writeEntryDurable(root: string, name: string, kind: EntryKind, body: unknown): Promise<void> {
  const made = ensureDir(root);
  if (made) await fsyncDir(root);
  await writeDurable(join(journalDir(root), name), formatEntry(kind, body));
}

/** Renamed into place, not flushed: survives a process crash, not a power loss. Throws when it cannot be written. */
export function writeEntryQuick(root: string, name: string, kind: EntryKind, body: unknown): void {
  const dir = journalDir(root);
  ensureDir(root);
  const tmp = join(dir, `.tmp-${name}`);
  writeFileSync(tmp, formatEntry(kind, body));
  renameSync(tmp, join(dir, name));
}

/** The entry's body, or null when it is absent or not a whole entry of `kind`. */
export function readEntry(root: string, name: string, kind: EntryKind): unknown {
  const dir = realDir(root);
  if (!dir) return null;
  try {
    const path = join(dir, name);
    // an entry is a file this code wrote: a link in its place is not read through
    if (!lstatSync(path).isFile()) return null;
    return parseEntry(readFileSync(path, 'utf8'), kind);
  } catch {
    return null;
  }
}

/** Gone once it returns (unflushed: an entry that comes back after a crash is finished again, and finds nothing left to do). */
export function removeEntry(root: string, name: string): void {
  const dir = realDir(root);
  if (!dir) return;
  try {
    unlinkSync(join(dir, name));
  } catch {
    // gone already, or unwritable: the next start finds it done
  }
}

/** The entry names starting `prefix`, sorted (temp files aside). */
export function listEntries(root: string, prefix: string): string[] {
  const dir = realDir(root);
  if (!dir) return [];
  try {
    return readdirSync(dir)
      .filter((n) => n.startsWith(prefix) && n.endsWith(ENTRY_SUFFIX))
      .sort();
  } catch {
    return [];
  }
}

/** Why the journal's folder is not used (a link or a file placed by hand), or null when it is a folder or missing. */
export function journalOdd(root: string): string | null {
  const st = lstatSync(journalDir(root), { throwIfNoEntry: false });
  if (!st || st.isDirectory()) return null;
  return st.isSymbolicLink() ? 'a symbolic link: no record is read or written through it' : 'not a folder: no record is read or written there';
}

/** Temp files a crash left mid-write; at start, under the root's lock, nobody else writes here. */
export function sweepJournal(root: string): void {
  const dir = realDir(root);
  if (!dir) return;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) if (n.startsWith('.tmp-')) removeEntry(root, n);
}
