/**
 * The library's history (docs/history.md): the library root is a git
 * repository and every write through the service is one commit, made after
 * the write has landed. Routes and sync code against this interface only;
 * it is reached as `library.history`.
 *
 * Paths are root-relative with forward slashes, as git names them
 * (`templates/quick-fix.yaml`); which paths there are is layout.ts's to say.
 */

/** One commit as the readers answer it. */
export interface Version {
  /** full 40-hex commit id */
  commit: string;
  /** the commit's author date, ISO 8601 UTC */
  at: string;
  /** the author, `Name <email>`: the person who asked (a user), else DESK_AUTHOR (docs/history.md) */
  author: string;
  /** the `Who:` trailer (the user's name, or the client address when the desk knows nobody), or null when the commit has none */
  who: string | null;
  /** the subject line, e.g. `save quick-fix (edited)`, `found on disk: quick-fix` */
  message: string;
  /**
   * false for a version of this desk's own that HEAD does not hold and no
   * push sends (a copy kept while a sync left the name diverged, own.ts);
   * absent or true for every commit of the history HEAD publishes
   */
  shared?: boolean;
}

/** A commit of the library-wide history, with the paths it touched (sorted). */
export interface RecentVersion extends Version {
  paths: string[];
}

/** A file at a commit, for showMany. */
export interface FileAt {
  path: string;
  commit: string;
}

export interface HistoryChange {
  /** the root-relative paths of the write; only these go into the commit, with the bytes on disk when it is made */
  paths: string[];
  /** the subject, e.g. `restore quick-fix to 1a2b3c4` */
  message: string;
  /** who asked (the user's name, or the client address when the desk knows nobody); becomes the `Who:` trailer */
  who?: string;
}

export interface Page {
  /** at most this many, newest first */
  limit: number;
  /** where the page starts: a commit id (the walk from HEAD now, after it), or a pinned place `<head>.<last>` (read.ts, docs/history.md "The walk") */
  before?: string;
}

export interface History {
  /** false when git is missing (said once at start) or the library has no writable root; then log/recent answer [] and show null */
  readonly enabled: boolean;
  /** why history is off, for the start message and coded errors; null when enabled */
  readonly disabled: string | null;
  /**
   * Queues one commit of `paths` with their bytes as they are on disk now
   * (read at the call, so a later write of them is a commit of its own; an
   * absent file is a removal). Never throws and never waits: a failure is
   * logged and retried later; the job is journaled, so a crash keeps it.
   * The library's own template and role writes are committed without
   * calling this (writes.ts tells history inside the name's slot); it is
   * for the other files a write changes (proposal records).
   */
  commit(change: HistoryChange): void;
  /** resolves once every commit queued so far has landed or failed (and been scheduled for a retry) */
  settle(): Promise<void>;
  /** commits that touched `path` (a file, or a folder such as `roles/reviewer`), newest first; [] when unknown */
  log(path: string, page: Page): Promise<Version[]>;
  /** the file's text in that commit; null for an unknown commit or a path not in it */
  show(path: string, commit: string): Promise<string | null>;
  /** each file's text, in order, as `show` answers it, read by one git process (a page of versions) */
  showMany(items: readonly FileAt[]): Promise<(string | null)[]>;
  /** the library's recent commits across names, newest first */
  recent(page: Page): Promise<RecentVersion[]>;
  /** called after each commit lands (e.g. to push); returns an unsubscribe */
  onCommit(listener: (v: RecentVersion) => void): () => void;
}

/** Other names the first users of this file wrote against. */
export type HistoryApi = History;
export type LogEntry = Version;
