import { randomBytes } from 'node:crypto';
import { DeskError } from '../../errors.js';
import type { LibraryLogger } from '../context.js';
import { removeFileDurable, writeFileAtomic } from '../disk/atomic-write.js';
import type { FaultHook, FsContext } from '../disk/fs-safe.js';
import { readRecordOutcome, scanRecords } from '../disk/record-folder.js';
import { rel } from '../layout.js';
import { KeyedQueue } from '../queue.js';
import type { Library } from '../types.js';
import { formatRecord, type RecordKind } from './kind.js';
import { type Decidable, pastKeep, pruneMessage } from './retention.js';

/** What the index reads of a kind (kind.ts): its folder, file names, parse and list entry. */
export type IndexedKind<R extends { id: string }, S extends Decidable> = Pick<
  RecordKind<R, S, string>,
  'folder' | 'what' | 'plural' | 'file' | 'cap' | 'parse' | 'path' | 'summary'
>;

export interface RecordIndexOptions<R, S> {
  library: Library;
  logger: LibraryLogger;
  /** test hook before every file-system step of a write */
  faults?: FaultHook | undefined;
  /** how many decided records stay (retention.ts) */
  keep: number;
  /** at the first read, each record found, once the index holds it (a proposal finishes a save a crash cut short) */
  loaded?: (rec: R) => Promise<void>;
  /** a record a sync wrote, read again inside the queue: what the index held before, and now (null: removed or odd) */
  synced(id: string, before: S | undefined, after: S | null): void;
}

/**
 * The index of a record folder (docs/api.md, Proposals and Launches): each
 * record's summary, read once at the first call, so the pending count costs
 * nothing and a list reads no file. The root lock makes this process the
 * folder's only writer; a sync, the one other, says which records it wrote
 * (library.syncFiles), and those are read again, so the index stays true. A
 * record removed or spoiled by hand is dropped at its next read; one whose
 * read fails for a passing reason (EMFILE, ENFILE, EIO, EACCES: a process
 * short of file descriptors, a flaky disk) stays listed and decidable, is
 * read again a moment later, and the failure is logged. Writes run
 * one at a time (`serial`): a count and a status are checked and changed
 * together. The decided records past the kept count leave the folder
 * (`prune`, retention.ts); history keeps them.
 */
export interface RecordIndex<R extends { id: string }, S extends Decidable> {
  /** the context to write with; no_library_root without a root */
  writable(): FsContext;
  /** reads the folder once (the first call of anything else does) */
  ready(): Promise<void>;
  /** runs a write once the folder is read, one at a time */
  serial<T>(task: () => Promise<T>): Promise<T>;
  /** the record written whole, atomically and durably, then indexed; `text`: its formatted bytes, when the caller has them */
  write(r: R, text?: string): Promise<void>;
  /**
   * the record on disk, or null for an id the index does not hold (or whose file is gone or odd now: dropped);
   * a read failing for a passing reason is tried again, twice, then record_unreadable (503), the record kept
   */
  read(id: string): Promise<R | null>;
  /** indexes `s` without a write (a record whose write failed but whose state is known) */
  set(s: S & { id: string }): void;
  pending(): number;
  keptDecided(): { count: number; limit: number };
  /** newest first */
  list(filter: 'pending' | 'decided' | 'all'): S[];
  /** the decided records past the kept count removed, in one commit; a failure is logged, never thrown */
  prune(): Promise<void>;
  /** `<ms since 1970, base36, 9 digits>-<80 random bits, hex>` (schema/proposals.ts PROPOSAL_ID) */
  newId(ms: number): string;
  /** stops following the records a sync writes */
  close(): void;
}

/** The pauses before a failed read is tried again within one call (ms): a descriptor freed, a disk back. */
const RETRY_MS = [50, 250];
/** How often, at most, the records not readable at the start or after a sync are tried again (ms). */
const UNREAD_EVERY_MS = 1000;

const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function openRecordIndex<R extends { id: string }, S extends Decidable>(kind: IndexedKind<R, S>, o: RecordIndexOptions<R, S>): RecordIndex<R, S> {
  const { library, logger, keep } = o;
  const summaries = new Map<string, S>();
  /** ids whose file could not be read at the start (`load`) or after a sync wrote it (`sync`): read again at a later call */
  const unread = new Map<string, 'load' | 'sync'>();
  let unreadTried = 0;
  const queue = new KeyedQueue();
  const told = new Set<string>();
  const fs: FsContext | null =
    library.root === null
      ? null
      : {
          root: library.root,
          faults: o.faults,
          report: ({ path, reason }) => {
            if (told.has(`${path}\0${reason}`)) return;
            told.add(`${path}\0${reason}`);
            logger.warn({ path, reason }, `an odd file in ${kind.folder}/ is skipped (docs/operations.md)`);
          },
        };
  let loaded: Promise<void> | null = null;

  const writable = (): FsContext => {
    if (!fs) throw new DeskError('no_library_root', `the service runs without a library root; ${kind.plural} are kept under it`);
    return fs;
  };
  const pending = () => {
    let n = 0;
    for (const s of summaries.values()) if (s.status === 'pending') n += 1;
    return n;
  };

  const failedRead = (id: string, code: string, extra: object = {}) =>
    logger.warn({ id, code, ...extra }, `a ${kind.what} record could not be read just now; it is kept and read again`);

  async function load(): Promise<void> {
    if (!fs) return;
    const { records, unread: failed } = await scanRecords(fs, kind);
    for (const rec of records) {
      const s = kind.summary(rec);
      summaries.set(s.id, s);
      await o.loaded?.(rec);
    }
    for (const { id, code } of failed) {
      unread.set(id, 'load');
      failedRead(id, code);
    }
    await prune();
  }

  /**
   * A record read again after a start or a sync could not read it, or after a
   * sync wrote it: indexed (a late start's record as the start would have,
   * a synced one as a sync's), dropped when gone, kept for later when it fails again.
   */
  async function refresh(fs: FsContext, id: string, why: 'load' | 'sync'): Promise<void> {
    const r = await readRecordOutcome(fs, kind, id);
    if (r.kind === 'failed') {
      if (!unread.has(id)) failedRead(id, r.code);
      unread.set(id, unread.get(id) ?? why);
      return;
    }
    const first = unread.get(id) ?? why;
    unread.delete(id);
    const before = summaries.get(id);
    const after = r.kind === 'record' ? kind.summary(r.rec) : null;
    if (after) summaries.set(id, after);
    else summaries.delete(id);
    if (first === 'load' && !before) {
      if (r.kind === 'record') await o.loaded?.(r.rec);
    } else o.synced(id, before, after);
  }

  /** The records not readable before, tried again at most once a second, inside the write queue. */
  async function retryUnread(): Promise<void> {
    if (!fs || unread.size === 0 || Date.now() - unreadTried < UNREAD_EVERY_MS) return;
    unreadTried = Date.now();
    const root = fs;
    await queue.run(kind.folder, async () => {
      for (const [id, why] of [...unread]) await refresh(root, id, why);
    });
  }

  /**
   * Removes the decided records past the newest `keep` (retention.ts), each
   * durably, then commits their removal in one commit: history still holds
   * them. Run at the start and after each decision, on the index alone, so it
   * costs nothing while within the bound. A failure is logged, never
   * answered: the decision it follows has landed, and the next one retries.
   */
  async function prune(): Promise<void> {
    const past = pastKeep(summaries.values(), keep);
    if (!fs || past.length === 0) return;
    const paths: string[] = [];
    try {
      for (const s of past) {
        await removeFileDurable(fs, kind.path(s.id), `${kind.what}-prune`);
        summaries.delete(s.id);
        paths.push(rel(kind.path(s.id)));
      }
    } catch (e) {
      logger.warn({ err: (e as Error).message, removed: paths.length }, `could not remove decided ${kind.plural} past the kept count`);
    }
    if (paths.length === 0) return;
    // a stand-in library (test/docs-api.test.ts) may keep no history
    (library.history as Library['history'] | undefined)?.commit({ paths, message: pruneMessage(paths.length, keep, kind.folder) });
    logger.info({ removed: paths.length, keep }, `decided ${kind.plural} past the kept count removed`);
  }

  // not awaited: it waits its turn in the write queue, which the caller may be running in
  const ready = () => {
    loaded ??= load();
    return loaded.then(() => {
      retryUnread().catch((e: unknown) => logger.warn({ err: (e as Error).message }, `could not read ${kind.plural} again`));
    });
  };
  const serial = <T>(task: () => Promise<T>) => ready().then(() => queue.run(kind.folder, task));

  /** Records a sync wrote (new here, decided on another desk, or removed): the index follows them. */
  async function reread(paths: string[]): Promise<void> {
    const ids = paths.flatMap((p) => kind.file.exec(p.slice(kind.folder.length + 1))?.[1] ?? []);
    // before the first read nothing is kept: that read will see them
    if (!fs || !loaded || ids.length === 0) return;
    const root = fs;
    await serial(async () => {
      for (const id of ids) await refresh(root, id, 'sync');
    });
  }
  const unsubscribe = library.syncFiles?.onPlainWritten((paths) => reread(paths.filter((p) => p.startsWith(`${kind.folder}/`))));

  return {
    writable,
    ready,
    serial,
    async write(r, text = formatRecord(r)) {
      await writeFileAtomic(writable(), kind.path(r.id), text, kind.what);
      const s = kind.summary(r);
      summaries.set(s.id, s);
    },
    async read(id) {
      if (!fs || !summaries.has(id)) return null;
      for (let attempt = 0; ; attempt++) {
        const r = await readRecordOutcome(fs, kind, id);
        if (r.kind === 'record') return r.rec;
        if (r.kind === 'gone') {
          // removed or replaced by hand since the start: no longer one of ours
          summaries.delete(id);
          return null;
        }
        // a passing failure: the record stays listed and decidable; tried again now, then at the next call
        if (attempt === RETRY_MS.length) {
          failedRead(id, r.code, { tries: attempt + 1 });
          throw new DeskError('record_unreadable', `the ${kind.what} record ${id} could not be read just now (${r.code}); it is kept, try again`);
        }
        await pause(RETRY_MS[attempt]!);
      }
    },
    set: (s) => void summaries.set(s.id, s),
    pending,
    keptDecided: () => ({ count: summaries.size - pending(), limit: keep }),
    list(filter) {
      const shown = (s: S) => filter === 'all' || (filter === 'pending') === (s.status === 'pending');
      return [...summaries.values()].filter(shown).sort((a, b) => (a.id < b.id ? 1 : -1));
    },
    prune,
    newId: (ms) => `${Math.max(0, ms).toString(36).padStart(9, '0').slice(-9)}-${randomBytes(10).toString('hex')}`,
    close: () => unsubscribe?.(),
  };
}
