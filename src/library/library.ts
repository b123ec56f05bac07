import { mkdir, realpath } from 'node:fs/promises';
import { DeskError } from '../errors.js';
import { harnessDir as defaultHarnessDir } from '../paths.js';
import type { validateTemplate } from '../template/validate.js';
import type { WriteGuard } from './context.js';
import { EventBus } from './events/bus.js';
import { disabledHistory } from './history/disabled.js';
import { type HistoryOptions, openHistory, type Opened } from './history/open.js';
import { noRecorder } from './history/recorder.js';
import { GitSpawner } from './history/spawner.js';
import { syncFiles } from './sync/files.js';
import { type FaultHook, type FsContext, rootUnwritable } from './disk/fs-safe.js';
import { READ_ONLY_TEMPLATES } from './templates/read-only.js';
import { acquireRootLock, HeldLocks, type LostHandler } from './disk/root-lock.js';
import { checkShipped, loadShipped } from './shipped.js';
import { libraryContext, libraryReads, type ReaderOptions, reportOnce, silentLogger } from './reader.js';
import type { Library } from './types.js';
import { keptBase, libraryWrites, writeReads } from './writes.js';
import { openDoor } from './door.js';
import { KeyedQueue } from './queue.js';
import { applyUpgrade } from './upgrade/apply.js';
import { rollForward } from './roll-forward.js';
import { planAnswer, planUpgrade } from './upgrade/plan.js';
import { openRecords, type RecordStores, type RecordsOptions } from './records.js';
import { LibraryWatcher, type WatchOptions } from './events/watch.js';
import { LibrarySync, type SyncOptions } from './sync/sync.js';
import { syncOwned } from './sync/owned.js';

/**
 * What a reader takes (reader.ts: root, harness, read-only templates,
 * logger, clock), except that the root is created when missing and a null
 * root refuses every write; and what writing adds.
 */
export interface LibraryOptions extends ReaderOptions {
  /** Test hook called before every file-system step of a write; throwing simulates a crash there. Default: none. */
  faults?: FaultHook;
  /** The template validator. Default: validateTemplate (src/template/validate.ts); tests may pass a stand-in. */
  validate?: typeof validateTemplate;
  /** History (docs/history.md): the author, the git binary, a fault hook. Default: DESK_AUTHOR's default, `git` on PATH. */
  history?: HistoryOptions;
  /**
   * What starts the git processes of history and sync (history/spawner.ts).
   * Default: one of the library's own, closed with it. A process that opens
   * many libraries (the tests, a benchmark) may share one, which is then its
   * own to close: each helper is a Node process to start.
   */
  spawner?: GitSpawner;
  /**
   * The root locks this library's opener holds (disk/root-lock.ts). A
   * process that opens many libraries may share one: a second open of a
   * root it already holds is then refused at once, where a lock it cannot
   * tell from another process's is refused only once its holder is seen
   * touching it (up to the refresh interval, 2 s). Default: the library's own.
   */
  locks?: HeldLocks;
  /** The proposal and launch-draft stores' bounds (records.ts): kept, pending, per hour, waits, clock. Default: theirs. */
  records?: RecordsOptions;
  /** The team's remote (DESK_LIBRARY_REMOTE; sync/sync.ts): `library.sync` is built over it when the root is ours. Default: none, no sync. */
  sync?: SyncOptions;
  /** The watcher's relist interval and what it tells (events/watch.ts). Default: its own; a failed look is logged as a warning. */
  watch?: WatchOptions;
  /** What the process does when the root's lock is lost while the library is open (root-lock.ts). Default: a process warning. */
  onLockLost?: LostHandler;
}

/**
 * Opens the library (docs/operations.md): takes the root's lock,
 * finishes or discards what a crash left behind, reads the shipped files
 * once. The answer implements the Library contract in types.ts.
 */
export async function openLibrary(options: LibraryOptions): Promise<Library> {
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const shipped = await loadShipped(options.harnessDir ?? defaultHarnessDir);
  // A broken harness refuses the start before anything is locked or recovered. The read-only
  // templates are written for the package's own harness (its roles), so they are checked with it.
  const readOnly = options.readOnlyTemplates ?? READ_ONLY_TEMPLATES;
  checkShipped(shipped, options.harnessDir === undefined ? readOnly : new Map());
  let fs: FsContext | null = null;
  let lock: Awaited<ReturnType<typeof acquireRootLock>> | null = null;
  /** the errno when the root is read-only for this process (fs-safe.ts rootUnwritable) */
  let unwritable: string | null = null;
  /** history, when the root is ours to write */
  let opened: Opened | null = null;
  /** starts the git processes of history and sync (nothing until the first one); the library's own is closed with it */
  const spawner = options.spawner ?? new GitSpawner();
  if (options.root !== null) {
    await mkdir(options.root, { recursive: true });
    // the operator chose this folder, links and all; below it, nothing is followed
    const root = await realpath(options.root);
    fs = { root, faults: options.faults, report: reportOnce(logger) };
    unwritable = await rootUnwritable(root);
    if (unwritable) {
      // nothing can write here, so no lock to take and no recovery to run: readers apply any pending intent
      logger.warn({ library_root: root, code: unwritable }, 'the library root cannot be written: serving it read-only, every write refused (507 library_unwritable)');
    } else {
      // the lock's exit hook is on the process while the library holds it (root-lock.ts)
      lock = await acquireRootLock(root, now, { exit: process, held: options.locks, onLost: options.onLockLost });
      try {
        // what a crash left: intents, then an upgrade's commit, queued before history looks at the disk (roll-forward.ts)
        await rollForward(fs, logger);
      } catch (e) {
        await lock.release();
        throw e;
      }
      // after recovery: the files are whole again, so what they hold can be committed
      opened = await openHistory(fs, lock.holder, logger, spawner, { owned: syncOwned, ...options.history }).catch((e: unknown) => {
        const why = `history is off: ${(e as Error).message}`;
        logger.error({ err: (e as Error).message, history: false }, why);
        return { history: disabledHistory(why), recorder: null, close: async () => {} };
      });
    }
  }
  const ctx = libraryContext({ fs, shipped, readOnly, now, logger, validate: options.validate });
  const queue = new KeyedQueue();
  let closed = false;
  const guard: WriteGuard = {
    queue,
    writable() {
      if (closed) throw new DeskError('internal', 'the library is closed');
      if (!ctx.fs) throw new DeskError('no_library_root', 'the service runs without a library root; start it with DESK_LIBRARY_ROOT to save');
      if (unwritable) throw new DeskError('library_unwritable', `the library root cannot be written (${unwritable}); it is served read-only`);
      return ctx.fs;
    },
  };
  const events = new EventBus();
  const recorder = opened?.recorder ?? noRecorder;
  // the one door every write of a name goes through (door.ts): saves, upgrades, sync
  const door = openDoor(ctx, guard, recorder, events, (u) => files.resolved(u));
  const files = syncFiles(ctx, guard, door, recorder);
  // opened just below, over the library itself: their records are saved and committed through it, the
  // watcher reads it, the sync writes through it. This is the one place the library's parts are put together.
  let records: RecordStores | null = null;
  let watcher: LibraryWatcher | null = null;
  let sync: LibrarySync | null = null;
  const library: Library = {
    root: fs?.root ?? null,
    events,
    history: opened?.history ?? disabledHistory(fs === null ? 'the library has no root' : 'the library root is read-only'),
    syncFiles: files,
    // reads look at the disk afresh at every call (docs/api.md), as a reader's do (reader.ts); writes are writes.ts, one function each
    ...libraryReads(ctx),
    keptBase: (name) => keptBase(ctx, name),
    ...libraryWrites({ door, shipped: ctx.shipped, readOnly: ctx.readOnly, reads: writeReads(ctx) }),
    planUpgrade: async () => planAnswer(await planUpgrade(ctx)),
    applyUpgrade: (request, who) => applyUpgrade({ ctx, guard, door, recorder, events }, request, who ?? null),
    get proposals() {
      return records!.proposals;
    },
    get launches() {
      return records!.launches;
    },
    get sync() {
      return sync;
    },
    get watcher() {
      return watcher!;
    },
    stopWaiting: () => records?.stopWaiting(),
    async close() {
      closed = true;
      await sync?.stop();
      watcher?.dispose();
      records?.close();
      await queue.idle();
      await opened?.close();
      if (spawner !== options.spawner) spawner.close();
      await lock?.release();
    },
  };
  records = openRecords(library, options.records, logger);
  watcher = new LibraryWatcher(library, events, { onError: (err) => logger.warn({ err }, 'a look for changes on disk failed; trying again'), ...options.watch });
  sync = options.sync && fs ? new LibrarySync(library, { logger, spawner, ...options.sync }) : null;
  return library;
}
