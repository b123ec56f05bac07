import { readdirSync } from 'node:fs';
import { changedMs, type StatKey, statKey, trusted } from './file-cache.js';
import { type FsContext, safeDirSync } from './fs-safe.js';

/**
 * The operator's `templates/` and `roles/` folders, listed once and kept
 * while a stat of the folder proves the listing current (issue 5 §1). POSIX
 * marks a folder's mtime and ctime whenever an entry in it is created,
 * removed or renamed, so an unchanged folder stat means unchanged entries;
 * the racy rule of file-cache.ts covers changes in the same clock tick. An
 * edit inside a file does not touch the folder — that is the file cache's
 * to see.
 *
 * A listing that is still current is answered with the same object, so the
 * catalogue built from it can be reused as long as it is (template-entries.ts).
 */
export interface DirListing {
  /** the folder's path */
  dir: string;
  /** every entry's name */
  entries: ReadonlySet<string>;
  /** with `types`: which entries are folders and which symbolic links (never followed); else empty */
  folders: ReadonlySet<string>;
  links: ReadonlySet<string>;
}

interface Slot {
  key: StatKey;
  changedMs: number;
  verifiedAt: number;
  listing: DirListing;
}

export class DirCache {
  private readonly slots = new Map<string, Slot>();
  /** how many times a folder was listed from disk; tests read it */
  listings = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * The listing of `root/<folder>`, or null when the folder is missing (or
   * there is no root). A link there is refused. `types`: also say which
   * entries are folders and links (the roles folder); names alone are
   * cheaper (the templates folder, thousands of files).
   */
  list(fs: FsContext | null, folder: string, types = false): DirListing | null {
    if (!fs) return null;
    const key = `${folder}\0${types}`;
    const found = safeDirSync(fs, [folder]);
    if (!found) {
      this.slots.delete(key);
      return null;
    }
    const slot = this.slots.get(key);
    if (slot && slot.listing.dir === found.dir && trusted(slot.key, slot.changedMs, slot.verifiedAt, found.stat)) return slot.listing;
    const verifiedAt = this.now();
    const folders = new Set<string>();
    const links = new Set<string>();
    let entries: Set<string>;
    if (types) {
      entries = new Set();
      for (const d of readdirSync(found.dir, { withFileTypes: true })) {
        entries.add(d.name);
        if (d.isDirectory()) folders.add(d.name);
        if (d.isSymbolicLink()) links.add(d.name);
      }
    } else entries = new Set(readdirSync(found.dir));
    this.listings++;
    // the stat was taken before the listing: a change between them makes the next call list again
    const listing = { dir: found.dir, entries, folders, links };
    this.slots.set(key, { key: statKey(found.stat), changedMs: changedMs(found.stat), verifiedAt, listing });
    return listing;
  }
}
