import type { Catalogue } from '../template/model.js';
import type { AnswerMemo } from './memos/answer-memo.js';
import type { KitTools } from './catalogue.js';
import type { EntryCache } from './memos/entry-cache.js';
import type { FsContext } from './disk/fs-safe.js';
import type { KeyedQueue } from './queue.js';
import type { Shipped } from './shipped.js';
import type { DivergedNames } from './state.js';
import type { ValidationMemo } from './memos/validation-memo.js';

/** pino-compatible: objects first, message second. */
export interface LibraryLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the readers and writers share; one per open library. */
export interface LibraryContext {
  /** null when the library has no root: shipped only, writes refused */
  fs: FsContext | null;
  shipped: Shipped;
  readOnly: ReadonlyMap<string, string>;
  /** clock in ms, for the racy rule (entry-cache.ts) */
  now: () => number;
  /** the list's facts per operator template, keyed on its files' stats */
  entries: EntryCache;
  memo: ValidationMemo;
  /** each kit.json Buffer's tools, read once (catalogue.ts) */
  kits: KitTools;
  /** the last single-template answers with their card (answer-memo.ts) */
  answers: AnswerMemo;
  /**
   * The last look's catalogue and its generation token (look.ts): a look
   * that finds the same names keeps the token, so memos proven under it
   * need no second proof. Nothing is answered from it.
   */
  last: { catalogue: Catalogue; gen: object } | null;
  logger: LibraryLogger;
  /** names a sync could not merge (state.ts, sync/files.ts); readers answer them as `diverged` */
  diverged: DivergedNames;
}

/** Shared by the write paths: the per-name queue and the root a write may use. */
export interface WriteGuard {
  queue: KeyedQueue;
  /** the root for a write; throws no_library_root (or when closed) */
  writable(): FsContext;
}
