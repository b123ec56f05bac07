import type { TreeRef } from '../history/recorder.js';
import type { Blob, Outcome, TemplateSide } from './merge.js';
import type { DivergedWhy } from '../../schema/sync.js';

/**
 * What a sync round asks of the library (sync/files.ts implements
 * it; sync/sync.ts and sync/round.ts drive it). A contract of plain types,
 * so the Library contract (types.ts) can name it without importing the
 * implementation.
 */

export interface RoleSide {
  role_md: Blob;
  kit: Blob;
  marker: Blob;
}

export type PlainDecision = (local: Blob) => Outcome<{ file: Blob }>;

export interface StepOptions {
  /** commit a change made on disk without the service first (`found on disk`), so this desk's copy is in history before it is decided */
  found: boolean;
}

/** One round's per-name steps, and its one commit. */
export interface SyncRound {
  /** reads the template's files, decides, writes the outcome; answers the outcome (`keep` too when its files are odd) */
  template(name: string, decide: (local: TemplateSide) => Outcome<TemplateSide>, o: StepOptions): Promise<Outcome<TemplateSide>>;
  role(name: string, decide: (local: RoleSide) => Outcome<RoleSide>, o: StepOptions): Promise<Outcome<RoleSide>>;
  /** a kept base or a proposal file, decided alone */
  plain(path: string, decide: PlainDecision): Promise<Outcome<{ file: Blob }>>;
  /** queues the round's commit (RoundRecord.finish), with the entries it takes by id */
  finish(c: { message: string; remote: string; head: string | null; fastForward: boolean; refs: ReadonlyMap<string, TreeRef> }): void;
  /** the round stopped early: nothing is committed; its journal rolls it forward at the next round or start */
  abandon(): void;
}

/** A validator problem as a diverged name keeps it. */
export interface SyncProblem {
  code: string;
  message: string;
}

export interface SyncFiles {
  /** a round begins; one at a time */
  round(): SyncRound;
  /** this desk's shipped template of a name (sha256 and text), or null */
  shipped(name: string): { hash: string; text: string } | null;
  /** the one validator against today's catalogue */
  valid(name: string, source: string): boolean;
  /** its errors, for a version that is not taken */
  problems(name: string, source: string): SyncProblem[];
  /** a role's files checked as a role save checks them; none when they would be taken */
  roleProblems(roleMd: Buffer, kit: Blob): SyncProblem[];
  /** why a name is diverged, or null when it is not: a name with no copy here is diverged on a teammate's version alone */
  divergedWhy(kind: 'templates' | 'roles', name: string): DivergedWhy | null;
  /** replaces the diverged names the readers answer (state.ts) */
  setDiverged(names: { templates: ReadonlyMap<string, DivergedWhy>; roles: ReadonlyMap<string, DivergedWhy> }): void;
  /** called when a write through the service settles a diverged name (writes.ts); returns an unsubscribe */
  onResolved(listener: (kind: 'templates' | 'roles', name: string) => void): () => void;
  /**
   * called once a sync's merge is committed, with the plain files it wrote
   * (root-relative paths), so a reader that keeps them in memory (the
   * proposal index) reads them again; returns an unsubscribe
   */
  onPlainWritten(listener: (paths: string[]) => Promise<void>): () => void;
  /**
   * called with true when a round begins writing and false when it ends (its
   * commit queued, or abandoned); the live stream's watcher leaves the
   * round's files to its one `library.synced` event; returns an unsubscribe
   */
  onRound(listener: (running: boolean) => void): () => void;
  /**
   * A person's decision on a diverged name (keep mine, take theirs), in the
   * name's slot: `files` written first when given (taking the remote's
   * version), then the name's files as they are committed as an ordinary
   * change with `message` — which the next push publishes
   */
  decided(kind: 'templates' | 'roles', name: string, files: TemplateSide | RoleSide | null, message: string, who: string | null): Promise<Map<string, Blob>>;
  /** this desk's own files of a name as they are on disk (path → bytes, null: none), read in its slot */
  own(kind: 'templates' | 'roles', name: string): Promise<Map<string, Blob>>;
  /** tells those listeners, and resolves once each has read what it needs */
  plainWritten(paths: string[]): Promise<void>;
}
