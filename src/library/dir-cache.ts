import { readdirSync } from 'node:fs';
import { changedMs, type StatKey, statKey, trusted } from './file-cache.js';
import { TEMP_PREFIX } from './atomic-write.js';
import { type FsContext, safeDirSync } from './fs-safe.js';

/**
 * The operator's `templates/` and `roles/` folders, listed once and kept
 * while a stat of the folder proves the listing current. POSIX
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
  /** the stat was taken right after the library's own write, which updated the listing (ownWrite) */
  own?: boolean;
}

function hasTemp(entries: ReadonlySet<string>): boolean {
  for (const n of entries) if (n.startsWith(TEMP_PREFIX)) return true;
  return false;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const n of a) if (!b.has(n)) return false;
  return true;
}

function sameListing(a: DirListing, b: DirListing): boolean {
  return a.dir === b.dir && sameSet(a.entries, b.entries) && sameSet(a.folders, b.folders) && sameSet(a.links, b.links);
}

function sameStat(key: StatKey, st: { dev: bigint; ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint }): boolean {
  return key.ino === st.ino && key.mtimeNs === st.mtimeNs && key.ctimeNs === st.ctimeNs && key.size === st.size && key.dev === st.dev;
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
    if (slot && slot.listing.dir === found.dir && (slot.own ? sameStat(slot.key, found.stat) : trusted(slot.key, slot.changedMs, slot.verifiedAt, found.stat))) {
      return slot.listing;
    }
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
    const fresh = { dir: found.dir, entries, folders, links };
    // the same names as kept (the usual case while the racy rule re-lists after a save): the same
    // object, so the catalogue and the cards built from it stay (template-entries.ts)
    const listing = slot && sameListing(slot.listing, fresh) ? slot.listing : fresh;
    this.slots.set(key, { key: statKey(found.stat), changedMs: changedMs(found.stat), verifiedAt, listing });
    return listing;
  }

  /**
   * After the library's own write in `root/<folder>` (names alone, the
   * templates folder): the kept listing, proven just before the write inside
   * the name's queue slot, takes the entries the write added and removed, and
   * the folder's stat as it is now — instead of listing 1,000 names again at
   * every look for the next 2 s (the racy rule). The root lock keeps other
   * programs of ours out; a change by hand moves the folder's stat after this
   * one and is listed again as ever. What this trusts, and the rule does not,
   * is a change by hand made during the write itself, or in the same clock
   * tick right after it — so the trust lasts only until the save has built its
   * answer (endOwn), and the next request proves the folder by the racy rule
   * again (docs/performance.md). No kept listing: nothing to do.
   */
  ownWrite(fs: FsContext, folder: string, added: readonly string[], removed: readonly string[]): void {
    const key = `${folder}\0false`;
    const slot = this.slots.get(key);
    if (!slot) return;
    const found = safeDirSync(fs, [folder]);
    if (!found || found.dir !== slot.listing.dir) {
      this.slots.delete(key);
      return;
    }
    let listing = slot.listing;
    // the same listing object while its names are the same: the catalogue built from it stays (template-entries.ts)
    if (added.some((n) => !listing.entries.has(n)) || removed.some((n) => listing.entries.has(n)) || hasTemp(listing.entries)) {
      const entries = new Set(listing.entries);
      for (const n of added) entries.add(n);
      for (const n of removed) entries.delete(n);
      // a look during the write may have listed its temp files, renamed since (recovery removes any `.tmp-` at start: they are ours)
      for (const n of entries) if (n.startsWith(TEMP_PREFIX)) entries.delete(n);
      listing = { ...listing, entries };
    }
    this.slots.set(key, { key: statKey(found.stat), changedMs: changedMs(found.stat), verifiedAt: this.now(), listing, own: true });
  }

  /**
   * Ends what ownWrite trusted: the kept listing stands only while the folder
   * stat passes the racy rule, so a file made or removed by hand while the
   * save ran is listed at the next request (a hand edit is always seen).
   */
  endOwn(folder: string): void {
    const slot = this.slots.get(`${folder}\0false`);
    if (slot) slot.own = false;
  }

  /** Forgets a folder's listing: the next look lists it (a write that failed part way). */
  forget(folder: string): void {
    this.slots.delete(`${folder}\0false`);
    this.slots.delete(`${folder}\0true`);
  }
}
