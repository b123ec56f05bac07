/**
 * The library's two record folders (docs/api.md, Proposals and Launches):
 * the proposal store and the launch-draft store, opened once per library so
 * every caller — the HTTP routes, a tool layer — calls the same functions
 * and meets the same bounds: one count of waits for a decision across both,
 * the hourly allowances, who may withdraw what, whose name a commit carries.
 */
import type { LibraryLogger } from './context.js';
import { type LaunchStore, openLaunchStore } from './records/launch.js';
import { openProposalStore, type ProposalStore } from './records/proposal.js';
import { openWaiters } from './records/waiters.js';
import type { Library } from './types.js';

/** The bounds on one folder's records (DESK_DECIDED_KEEP, DESK_PROPOSALS_PER_HOUR, DESK_LAUNCHES_PER_HOUR). */
export interface RecordStoreSettings {
  /** decided records kept in the folder; default 1000 */
  decidedKeep?: number;
  /** records that may wait for a decision at once; default 500 */
  maxPending?: number;
  /** creates one person (else one client address) may make an hour; 0: no limit; default 120 */
  perHour?: number;
  /** clock in ms, for ids, times and the allowance; default Date.now (tests pass their own) */
  now?: () => number;
}

export interface RecordsOptions {
  proposals?: RecordStoreSettings;
  launches?: RecordStoreSettings;
  /** waits for a decision (`?wait=`) held at once, proposals and drafts together; default 256 (records/waiters.ts) */
  maxWaiters?: number;
}

export interface RecordStores {
  proposals: ProposalStore;
  launches: LaunchStore;
  /** every wait answers now, and later ones at once: the service stops */
  stopWaiting(): void;
  /** the waits end and the stores stop following the records a sync writes */
  close(): void;
}

const defined = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** A logger's child naming the folder, when it can have one (pino's can). */
function childOf(logger: LibraryLogger | undefined, records: string): LibraryLogger | undefined {
  const l = logger as (LibraryLogger & { child?: (b: object) => LibraryLogger }) | undefined;
  return typeof l?.child === 'function' ? l.child({ records }) : logger;
}

/** The stores over `library`; nothing is read until the first call (or `ready()`). */
export function openRecords(library: Library, o: RecordsOptions = {}, logger?: LibraryLogger): RecordStores {
  const waiters = openWaiters(defined({ max: o.maxWaiters }));
  const settings = (s: RecordStoreSettings = {}) => defined({ decidedKeep: s.decidedKeep, maxPending: s.maxPending, perHour: s.perHour, now: s.now });
  const proposals = openProposalStore({ library, waiters, ...defined({ logger: childOf(logger, 'proposals') }), ...settings(o.proposals) });
  const launches = openLaunchStore({ library, waiters, ...defined({ logger: childOf(logger, 'launches') }), ...settings(o.launches) });
  return {
    proposals,
    launches,
    stopWaiting: () => waiters.close(),
    close() {
      waiters.close();
      proposals.close();
      launches.close();
    },
  };
}
