import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LibraryLogger } from '../context.js';
import type { Snapshot } from './snapshot.js';

/**
 * Queued commits kept across a crash (docs/history.md). A write's job is
 * written here inside its queue slot, before the write answers, and removed
 * once its commit has landed; the next start commits what is left, in order,
 * before anything else. So a `kill -9` between a save's answer and its commit
 * loses no version, even one a later save has overwritten on disk.
 *
 * The file is written and renamed into place but not fsync'd: a flush would
 * cost each save about as much as one of its own three, and the process
 * crash this guards against keeps the page cache. After a power loss a job
 * may be gone; the files themselves are durable, and the start commits
 * what is on disk as `found on disk`, so only intermediate versions of the
 * last moments can be missing from history, never the text that loads.
 *
 * It lives in `.git/desk-history/pending/`: inside the repository's own
 * folder, so it is never a library file and never committed.
 */

export interface JournalEntry {
  message: string;
  who: string | null;
  at: number;
  /** path → base64 bytes, or null for a removed file */
  files: Record<string, string | null>;
}

export class Journal {
  private readonly dir: string;
  private seq = 0;
  private told = false;

  constructor(
    gitDir: string,
    private readonly logger: LibraryLogger,
  ) {
    this.dir = join(gitDir, 'desk-history', 'pending');
  }

  /** The file name, or null when it could not be written (logged once; the job still runs from memory). */
  write(entry: JournalEntry): string | null {
    const name = `${String(entry.at).padStart(15, '0')}-${String(process.pid).padStart(7, '0')}-${String(this.seq++).padStart(9, '0')}.json`;
    try {
      mkdirSync(this.dir, { recursive: true });
      const tmp = join(this.dir, `.tmp-${name}`);
      writeFileSync(tmp, JSON.stringify(entry));
      renameSync(tmp, join(this.dir, name));
      return name;
    } catch (e) {
      if (!this.told) this.logger.warn({ err: (e as Error).message }, 'history: cannot keep queued commits on disk; a crash before they land loses them');
      this.told = true;
      return null;
    }
  }

  done(name: string): void {
    try {
      unlinkSync(join(this.dir, name));
    } catch {
      // gone already, or unwritable: the next start finds its commit landed and skips it
    }
  }

  /**
   * Before HEAD moves to `commit`, the journal files that commit lands: a
   * crash after the move and before those files are removed must not commit
   * them again at the next start (settleLanding). Written and renamed
   * synchronously; should that fail it throws, HEAD is not moved, and the
   * batch is retried.
   */
  landing(commit: string, names: string[]): void {
    mkdirSync(this.dir, { recursive: true });
    const tmp = join(this.dir, '.tmp-landing');
    writeFileSync(tmp, JSON.stringify({ commit, names }));
    renameSync(tmp, join(this.dir, '..', 'landing.json'));
  }

  landed(): void {
    try {
      unlinkSync(join(this.dir, '..', 'landing.json'));
    } catch {
      // gone already
    }
  }

  /** At start: a landing that HEAD holds removes its journal files; one it does not hold is replayed from them. True when one was there (a batch was cut short). */
  async settleLanding(holds: (commit: string) => Promise<boolean>): Promise<boolean> {
    let l: { commit?: unknown; names?: unknown };
    try {
      l = JSON.parse(readFileSync(join(this.dir, '..', 'landing.json'), 'utf8')) as typeof l;
    } catch (e) {
      this.landed();
      return (e as NodeJS.ErrnoException).code !== 'ENOENT';
    }
    if (typeof l.commit === 'string' && Array.isArray(l.names) && (await holds(l.commit))) {
      for (const n of l.names) if (typeof n === 'string' && /^[0-9-]+\.json$/.test(n)) this.done(n);
    }
    this.landed();
    return true;
  }

  /** What a crash left, oldest first; a torn or foreign file is removed. */
  left(): { name: string; entry: JournalEntry }[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).sort();
    } catch {
      return [];
    }
    const out: { name: string; entry: JournalEntry }[] = [];
    for (const name of names) {
      try {
        if (!name.endsWith('.json') || name.startsWith('.tmp-')) throw new Error('not a job');
        const entry = JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as JournalEntry;
        if (typeof entry.message !== 'string' || typeof entry.at !== 'number' || typeof entry.files !== 'object') throw new Error('not a job');
        out.push({ name, entry });
      } catch {
        this.done(name);
      }
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
