import type { Catalogue } from '../template/model.js';
import type { validateTemplate, Validation } from '../template/validate.js';
import type { FileCache } from './file-cache.js';
import type { FsContext } from './fs-safe.js';
import type { KeyedQueue } from './queue.js';
import type { Shipped } from './shipped.js';

/** pino-compatible: objects first, message second. */
export interface LibraryLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the entry builders and writers share; one per open library. */
export interface LibraryContext {
  /** null when the library has no root: shipped only, writes refused */
  fs: FsContext | null;
  shipped: Shipped;
  readOnly: ReadonlyMap<string, string>;
  cache: FileCache;
  validate: typeof validateTemplate;
  /** per template name: the last validation and what it was keyed on */
  memo: Map<string, { hash: string; catalogueKey: string; result: Validation }>;
  logger: LibraryLogger;
}

/** The catalogue and a key that changes exactly when its names do. */
export interface CatalogueSnapshot {
  catalogue: Catalogue;
  key: string;
}

/** Shared by the write paths: the per-name queue and the root a write may use. */
export interface WriteGuard {
  queue: KeyedQueue;
  /** the root for a write; throws no_library_root (or when closed) */
  writable(): FsContext;
}
