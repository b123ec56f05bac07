import { DeskError } from '../../errors.js';
import type { LibraryLogger } from '../context.js';
import type { FaultHook } from '../disk/fs-safe.js';
import type { RecordStoreFace } from '../records-contract.js';
import type { Library } from '../types.js';
import { type RecordAnnouncer, recordAnnouncer } from './announce.js';
import { type Asker, whoIs } from './asker.js';
import { formatRecord, type RecordKind } from './kind.js';
import { createRate, takeAllowance } from './rate-limit.js';
import { openRecordIndex, type RecordIndex } from './record-index.js';
import { type Decidable, DEFAULT_DECIDED_KEEP } from './retention.js';
import { openWaiters, readWhenDecided, type Waiters } from './waiters.js';

/** What every kind's store is opened with (records.ts opens both). */
export interface RecordStoreOptions<S, C extends string> {
  library: Library;
  /** pino-compatible. Default: logs nothing. */
  logger?: LibraryLogger;
  /** Clock in ms, for ids, times and the allowance. Default: Date.now. */
  now?: () => number;
  /** Test hook before every file-system step of a write, as openLibrary's. Default: none. */
  faults?: FaultHook;
  /** How many may wait for a decision; the next is refused (the kind's `tooMany`). Default: 500. */
  maxPending?: number;
  /** Creates one person (else one client address) may make an hour; 0: no limit. Default: the kind's (DESK_PROPOSALS_PER_HOUR, DESK_LAUNCHES_PER_HOUR). */
  perHour?: number;
  /** How many decided records stay in the folder, the newest by the team's rule (retention.ts); the rest are removed. Default: 1000. */
  decidedKeep?: number;
  /** Told after each record written or synced, just after its event. Default: none. */
  onChange?: (change: C | 'decided', s: S) => void;
  /** The waits for a decision (`getWhenDecided`), shared by the kinds so one bound holds for all. Default: its own. */
  waiters?: Waiters;
}

/** What a kind adds to how its records are read. */
export interface RecordHooks<R> {
  /** at the first read, each record found (a proposal finishes a save a crash cut short) */
  loaded?(rec: R): Promise<void>;
  /** a record as read, shown as it landed (a proposal's save between its two writes) */
  landed?(rec: R): Promise<R>;
}

type Decided = Decidable & { decided_by: string | null };

/** The store's parts a kind builds its own requests from (proposal.ts, launch.ts). */
export interface RecordCore<R extends Decided, S extends Decided, C extends string> {
  library: Library;
  logger: LibraryLogger;
  index: RecordIndex<R, S>;
  announce: RecordAnnouncer<S, C>;
  /** now, as ISO 8601 */
  iso(): string;
  /** runs a write once the folder is read, one at a time */
  serial<T>(task: () => Promise<T>): Promise<T>;
  /** the record by id as it landed, or null */
  read(id: string): Promise<R | null>;
  /** the record, still pending: else not_found or already_decided */
  undecided(id: string): Promise<R>;
  /**
   * A new record: the asker's allowance taken, `check` passed (it refuses a
   * request that is not well formed: nothing is kept), the pending bound
   * held, then the record `make` builds written, committed and told.
   */
  create<P>(asker: Asker | null, check: () => P | Promise<P>, make: (checked: P, id: string, createdAt: string) => R, log?: (checked: P) => object): Promise<{ rec: R; checked: P }>;
  /** `done`, a decided record, is on disk: the waits end, its commit and event, one log line, then the decided past the kept count leave */
  decided(done: R): Promise<R>;
  /** `rec` decided as `status` by `who` (with the kind's `extra` fields), written, then as `decided` */
  decide(rec: R, status: R['status'], who: string | null, extra?: Partial<R>): Promise<R>;
  /** the requests every kind answers alike; `view`: a record as the kind answers it */
  face<V>(view: (rec: R) => V | Promise<V>): RecordStoreFace<S, V>;
}

const silent: LibraryLogger = { info() {}, warn() {}, error() {} };

/**
 * One record store (docs/api.md, Proposals and Launches), for any kind
 * (kind.ts): its records kept one file each in the kind's folder, with the
 * index (record-index.ts: read once, followed through syncs, odd files
 * skipped), the waits for a decision (waiters.ts), retention (retention.ts)
 * and the hourly allowance (rate-limit.ts).
 *
 * A create reads top to bottom: the allowance (every create asked counts,
 * kept or refused: it bounds the work a client makes, not only what is
 * kept), the kind's checks, then in the write queue the pending bound, the
 * record written, its commit and event. A decision: the record found,
 * still pending, the kind's own steps, the record written; then the waits
 * on it end at once — what they read is durable, and git has nothing to add
 * to it — then its commit and event, a log line, and the decided records
 * past the kept count removed.
 */
export function openRecordCore<R extends Decided, S extends Decided, C extends string>(
  kind: RecordKind<R, S, C>,
  o: RecordStoreOptions<S, C>,
  hooks: RecordHooks<R> = {},
): RecordCore<R, S, C> {
  const { library } = o;
  const logger = o.logger ?? silent;
  const now = o.now ?? Date.now;
  const max = o.maxPending ?? 500;
  const waiters = o.waiters ?? openWaiters();
  const perHour = o.perHour ?? kind.perHour;
  // in memory, bounded (rate-limit.ts)
  const rate = createRate({ perHour, now });
  const announce = recordAnnouncer(library, kind, o.onChange);
  const index = openRecordIndex(kind, {
    library,
    logger,
    faults: o.faults,
    keep: o.decidedKeep ?? DEFAULT_DECIDED_KEEP,
    ...(hooks.loaded ? { loaded: hooks.loaded } : {}),
    synced(id, before, after) {
      // removed, or decided on another desk: its waits end with what is on disk now
      if (after?.status !== 'pending') waiters.wake(id);
      if (after && before?.status !== after.status) announce.synced(after.status === 'pending' ? kind.created : 'decided', after);
    },
  });
  const { ready, serial } = index;
  const iso = () => new Date(now()).toISOString();

  async function read(id: string): Promise<R | null> {
    const rec = await index.read(id);
    return rec && hooks.landed ? hooks.landed(rec) : rec;
  }

  async function undecided(id: string): Promise<R> {
    const rec = await read(id);
    if (!rec) throw new DeskError('not_found', `no ${kind.noun} ${id}`);
    if (rec.status !== 'pending') throw new DeskError('already_decided', `${kind.noun} ${id} is already ${rec.status}`);
    return rec;
  }

  async function decided(done: R): Promise<R> {
    const s = kind.summary(done);
    waiters.wake(done.id);
    announce.written('decided', s);
    logger.info({ id: done.id, status: done.status, ...kind.about(s) }, `${kind.noun} decided`);
    // one more decided: the oldest past the kept count leaves (after the decision's own commit)
    await index.prune();
    return done;
  }

  return {
    library,
    logger,
    index,
    announce,
    iso,
    serial,
    read,
    undecided,
    decided,
    async decide(rec, status, who, extra = {}) {
      const done: R = { ...rec, ...extra, status, decided_at: iso(), decided_by: who };
      await index.write(done);
      return decided(done);
    },
    async create(asker, check, make, log) {
      index.writable();
      if (asker) takeAllowance(rate, asker, perHour, kind.plural);
      const checked = await check();
      return serial(async () => {
        const count = index.pending();
        if (count >= max) throw kind.tooMany(count);
        const t = now();
        const rec = make(checked, index.newId(t), new Date(t).toISOString());
        // formatted once: measured against the cap, then written
        const text = formatRecord(rec);
        if (kind.tooLarge && Buffer.byteLength(text, 'utf8') > kind.cap) throw kind.tooLarge(kind.cap);
        await index.write(rec, text);
        const s = kind.summary(rec);
        announce.written(kind.created, s, whoIs(asker));
        logger.info({ id: rec.id, ...kind.about(s), ...log?.(checked) }, `${kind.noun} kept`);
        return { rec, checked };
      });
    },
    face(view) {
      return {
        ready,
        close: () => index.close(),
        stopWaiting: () => waiters.close(),
        async pending() {
          await ready();
          return index.pending();
        },
        async keptDecided() {
          await ready();
          return index.keptDecided();
        },
        async list(filter) {
          await ready();
          return index.list(filter);
        },
        async get(id) {
          await ready();
          const rec = await read(id);
          return rec ? view(rec) : null;
        },
        async getWhenDecided(id, ms, signal) {
          await ready();
          const rec = await readWhenDecided(waiters, id, ms, signal, async () => (await read(id)) ?? { status: 'gone' as const });
          return 'id' in rec ? view(rec) : null;
        },
      };
    },
  };
}
