import type { LibraryLogger } from '../context.js';
import { listEntries, readEntry, removeEntry, writeEntryQuick } from '../disk/journal.js';
import { COMMIT_PREFIX, LANDING_ENTRY } from '../layout.js';
import type { Snapshot } from './snapshot.js';

/**
 * Queued commits kept across a crash (docs/history.md): entries of the
 * journal (disk/journal.ts). A write's job is written there inside its
 * queue slot, before the write answers, and removed once its commit has
 * landed; the next start commits what is left, in order, before anything
 * else. So a `kill -9` between a save's answer and its commit loses no
 * version, even one a later save has overwritten on disk.
 *
 * The entry is written and renamed into place but not fsync'd: a flush would
 * cost each save about as much as one of its own three, and the process
 * crash this guards against keeps the page cache. After a power loss a job
 * may be gone; the files themselves are durable, and the start commits
 * what is on disk as `found on disk`, so only intermediate versions of the
 * last moments can be missing from history, never the text that loads.
 */

export interface JournalEntry {
  message: string;
  who: string | null;
  at: number;
  /** path → base64 bytes, or null for a removed file */
  files: Record<string, string | null>;
}

/** A job's entry name: its time, the process and a counter, so names sort in the order the jobs were queued. */
const JOB = /^commit-[0-9]{15}-[0-9]{7}-[0-9]{9}\.intent$/;

export class Journal {
  private seq = 0;
  private told = false;

  constructor(
    /** the library root, whose journal folder holds the jobs */
    private readonly root: string,
    private readonly logger: LibraryLogger,
  ) {}

  /** The entry name, or null when it could not be written (logged once; the job still runs from memory). */
  write(entry: JournalEntry): string | null {
    const name = `${COMMIT_PREFIX}${String(entry.at).padStart(15, '0')}-${String(process.pid).padStart(7, '0')}-${String(this.seq++).padStart(9, '0')}.intent`;
    try {
      writeEntryQuick(this.root, name, 'commit', entry);
      return name;
    } catch (e) {
      if (!this.told) this.logger.warn({ err: (e as Error).message }, 'history: cannot keep queued commits on disk; a crash before they land loses them');
      this.told = true;
      return null;
    }
  }

  done(name: string): void {
    removeEntry(this.root, name);
  }

  /**
   * Before HEAD moves to `commit`, the job entries that commit lands: a
   * crash after the move and before those entries are removed must not
   * commit them again at the next start (settleLanding). Written and renamed
   * synchronously; should that fail it throws, HEAD is not moved, and the
   * batch is retried.
   */
  landing(commit: string, names: string[]): void {
    writeEntryQuick(this.root, LANDING_ENTRY, 'landing', { commit, names });
  }

  landed(): void {
    removeEntry(this.root, LANDING_ENTRY);
  }

  /** At start: a landing that HEAD holds removes its job entries; one it does not hold is replayed from them. True when one was there (a batch was cut short). */
  async settleLanding(holds: (commit: string) => Promise<boolean>): Promise<boolean> {
    if (!listEntries(this.root, LANDING_ENTRY).length) return false;
    const l = readEntry(this.root, LANDING_ENTRY, 'landing') as { commit?: unknown; names?: unknown } | null;
    if (l && typeof l.commit === 'string' && Array.isArray(l.names) && (await holds(l.commit))) {
      for (const n of l.names) if (typeof n === 'string' && JOB.test(n)) this.done(n);
    }
    this.landed();
    return true;
  }

  /** What a crash left, oldest first; a torn or foreign entry is removed. */
  left(): { name: string; entry: JournalEntry }[] {
    const out: { name: string; entry: JournalEntry }[] = [];
    for (const name of listEntries(this.root, COMMIT_PREFIX)) {
      const entry = readEntry(this.root, name, 'commit') as JournalEntry | null;
      if (JOB.test(name) && entry && typeof entry.message === 'string' && typeof entry.at === 'number' && typeof entry.files === 'object' && entry.files !== null) out.push({ name, entry });
      else this.done(name);
    }
    return out;
  }
}

export function toEntry(snapshot: Snapshot, message: string, who: string | null, at: number): JournalEntry {
  const files: Record<string, string | null> = {};
  for (const [p, b] of snapshot) files[p] = b === null ? null : b.toString('base64');
  return { message, who, at, files };
}

export function fromEntry(e: JournalEntry): Snapshot {
  const s: Snapshot = new Map();
  for (const [p, b] of Object.entries(e.files)) s.set(p, b === null ? null : Buffer.from(b, 'base64'));
  return s;
}
