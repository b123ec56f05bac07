import type { NameKey } from './snapshot.js';

/** A tree entry a commit takes by id, without its bytes ever being read (null: the path is removed). */
export type TreeRef = { mode: string; id: string } | null;

/**
 * What a write tells history (docs/history.md, "One write"). Every call is
 * made inside the name's queue slot, so the bytes it takes from disk are the
 * ones that write wrote — never a later write's. None of them throws or
 * waits for git: a commit is queued, and a failure costs that commit only
 * (logged, retried).
 */
export interface Recorder {
  /** Before a write: a change made on disk without the service since the last commit becomes a `found on disk` commit of its own. */
  found(key: NameKey): void;
  /** After a write landed: one commit of the name's files as they are now, with its subject and `Who:` trailer. */
  record(key: NameKey, message: string, who: string | null): void;
  /** Any other files (proposal records): one commit of these root-relative paths as they are now. */
  recordPaths(paths: readonly string[], message: string, who: string | null): void;
  /** A sync round: one merge commit for all its per-name steps. One round at a time. */
  round(): RoundRecord;
}

/**
 * A sync round's commit. Its steps add the files the round wrote; `finish`
 * queues one commit with the remote's head as second parent. A write of a
 * name the round has already written queues its own commit behind the
 * round's, so history keeps the order the writes happened in.
 */
export interface RoundRecord {
  /** inside the name's slot, after the round wrote the name's files */
  step(key: NameKey): void;
  /** a file of no name (a kept base, a proposal record), after the round wrote it */
  stepPath(path: string): void;
  /**
   * Queues the merge commit. `fastForward`: the desk had nothing of its own,
   * so HEAD simply moves to `remote` — provided HEAD is still `head`, the
   * commit the round merged from, when the commit's turn comes; otherwise a
   * merge commit is made after all.
   */
  finish(c: { message: string; remote: string; head: string | null; fastForward: boolean; refs: ReadonlyMap<string, TreeRef> }): void;
  /**
   * The round stopped before its merge: nothing is committed, and the writes
   * queued behind it go on. Its journal (sync/store.ts) rolls it forward, and
   * until then the start's look for changes on disk leaves its paths alone.
   */
  abandon(): void;
}

/** History off: nothing is recorded. */
export const noRecorder: Recorder = {
  found() {},
  record() {},
  recordPaths() {},
  round: () => ({ step() {}, stepPath() {}, finish() {}, abandon() {} }),
};
