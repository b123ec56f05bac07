/**
 * The Library contract: what openLibrary (library.ts) answers, the core's
 * reads and writes (entries.ts) with the features built over them. It names
 * the features' types, so the core and the features name entries.ts instead,
 * never this file (.dependency-cruiser.cjs, library-parts in
 * scripts/library-parts.mjs).
 */
import type { UpgradePlanAnswer, UpgradeRequestBody, UpgradeResultAnswer } from '../schema/upgrade.js';
import type { LibraryReads, LibraryWrites } from './entries.js';
import type { EventBus } from './events/bus.js';
import type { LibraryWatcher } from './events/watch.js';
import type { LibrarySync } from './sync/sync.js';
import type { SyncFiles } from './sync/contract.js';
import type { History } from './history/types.js';
import type { LaunchStore, ProposalStore } from './records-contract.js';

export type { EntryState, LibraryReads, LibraryWrites, RoleEntry, TemplateDetail, TemplateEntry, TemplateFacts, TemplateOutline, WriteOptions } from './entries.js';

/**
 * The library layer's face to the HTTP layer (docs/api.md). Every failure is
 * a DeskError from src/errors.ts; nothing here knows fastify. Every call
 * looks at the disk afresh: what it answers is plain data.
 */
export interface Library extends LibraryReads, LibraryWrites {
  /** the operator's folder, or null when the library has no root */
  readonly root: string | null;
  /** the shipped bytes the copy was saved against, or null when none is kept */
  keptBase(name: string): Promise<string | null>;
  /** every operator copy behind the shipped templates and roles, with what an upgrade would do (upgrade/plan.ts) */
  planUpgrade(): Promise<UpgradePlanAnswer>;
  /** the upgrade: each copy a save, the whole one history commit and one `library.upgraded` event (upgrade/apply.ts) */
  applyUpgrade(request: UpgradeRequestBody, who?: string): Promise<UpgradeResultAnswer>;
  /** what changed: every write above publishes here once it completes (events.ts) */
  readonly events: EventBus;
  /** every write above is one git commit after it lands (history/types.ts, docs/history.md) */
  readonly history: History;
  /** the files side of a sync with the team's remote (sync/files.ts); absent in stand-ins */
  readonly syncFiles?: SyncFiles;
  /** the proposals a conductor makes and the operator decides (records/proposal.ts), opened once with the library: every caller uses this one */
  readonly proposals: ProposalStore;
  /** the launch drafts (records/launch.ts), likewise */
  readonly launches: LaunchStore;
  /**
   * the sync with the team's remote (sync/sync.ts), built when the library was opened with
   * `sync` and has a root; null without. The app starts it when ready and stops it before closing.
   */
  readonly sync: LibrarySync | null;
  /**
   * finds changes made without the service and publishes them on `events` (events/watch.ts);
   * idle until started: the events stream starts it while a client listens
   */
  readonly watcher: LibraryWatcher;
  /** every wait for a decision on either answers now, and later ones at once: the service is stopping */
  stopWaiting(): void;
  /** stops the sync and the watcher, finishes in-flight writes and releases the root lock */
  close(): Promise<void>;
}
