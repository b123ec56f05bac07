/**
 * The library's face: everything src/http, src/mcp and the top (app.ts,
 * server.ts, the command line, config.ts) may use of src/library, which they
 * import from here or, for types alone, from types.ts — nothing else
 * (.dependency-cruiser.cjs, `outside-library-only-to-face`). openLibrary
 * puts the library together, every part of it (the sync, the watcher, the
 * record stores) in one place; callers reach the parts through the Library
 * it answers, never by building one. docs/architecture.md draws the floors.
 *
 * Nothing inside src/library imports this file: it stands above them all.
 */

// opening: the library, a reader of a root for another process, and the record stores over a stand-in library (tests)
export { type LibraryOptions, openLibrary } from './library.js';
export { type LibraryReader, openLibraryReader, type ReaderOptions } from './reader.js';
export { openRecords, type RecordStoreSettings, type RecordsOptions, type RecordStores } from './records.js';
export type { SyncOptions } from './sync/sync.js';
export type { WatchOptions } from './events/watch.js';
export { READ_ONLY_TEMPLATES } from './templates/read-only.js';

// the contract and the types its calls answer
export type * from './types.js';
export type { DeskEvent, EventBus } from './events/bus.js';

// answers as the API and the MCP tools shape them (docs/api.md)
export { launchAnswer, proposalAnswer, templateAnswer } from './answers.js';

// reads over the library that write nothing: comparisons, previews, history
export { diffTemplate, rebaseOntoShipped } from './compare.js';
export { rebaseAnswer } from './templates/three-way.js';
export { launchPreview } from './templates/launch-preview.js';
export { proposalCard } from './records/proposal-card.js';
export { recentPage } from './history/recent.js';
export { historyOf, type RestoreOptions, restoreVersion, roleDiff, roleVersions, templateVersions, versionAt, type VersionKind, versionsPage } from './history/versions.js';

// the record stores' contract (records-contract.ts) and what a route tells apart
export type { Asker, LaunchStore, LaunchView, ProposalStore } from './records-contract.js';
export type { ProposalRecord } from './records/proposal-record.js';
export { isRefusal } from './records/launch.js';
export { AllowanceSpent, DEFAULT_LAUNCHES_PER_HOUR, DEFAULT_PROPOSALS_PER_HOUR } from './records/rate-limit.js';
export { DEFAULT_DECIDED_KEEP } from './records/retention.js';

// the root's lock, as the process shell and the command line meet it
export { type LostHandler, RootLockedError } from './disk/root-lock.js';

// the disk's helpers the users file (src/http/users-file.ts, src/cli/user.ts) shares with the library
export { ifMatchPasses, sha256Hex } from './disk/markers.js';
export { oddType } from './disk/fs-safe.js';
export { writeDurable } from './disk/atomic-write.js';
