import type { Catalogue } from '../template/model.js';
import type { validateTemplate } from '../template/validate.js';
import type { DirCache, DirListing } from './dir-cache.js';
import type { FileCache } from './file-cache.js';
import type { FsContext } from './fs-safe.js';
import type { KeyedQueue } from './queue.js';
import type { Shipped } from './shipped.js';
import type { TemplateEntry } from './types.js';
import type { ValidationMemo } from './validation-memo.js';

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
  /** the operator's `templates/` and `roles/` listings, kept while a folder stat proves them current */
  dirs: DirCache;
  /** the last catalogue and the listings it was built from: reused while both listings are */
  lastCatalogue: { templates: DirListing | null; roles: DirListing | null; snapshot: CatalogueSnapshot } | null;
  validate: typeof validateTemplate;
  /** per template name: the last validation and what it depends on (validation-memo.ts) */
  memo: Map<string, ValidationMemo>;
  /** memos holding their whole validation, least recently used first (validation-memo.ts) */
  fulls: Set<ValidationMemo>;
  /** per template name: the last entry answered, answered again (the same object) while nothing in it changed */
  entries: Map<string, TemplateEntry>;
  /** the whole entries (source, problems, model) of the most recently read templates, each answered again while its listed entry is (template-entries.ts) */
  wholes: Map<string, { listed: TemplateEntry; whole: TemplateEntry }>;
  logger: LibraryLogger;
}

/** The catalogue, a key that changes exactly when its names do, and a generation number that changes with the key. */
export interface CatalogueSnapshot {
  catalogue: Catalogue;
  key: string;
  gen: number;
}

/** Shared by the write paths: the per-name queue and the root a write may use. */
export interface WriteGuard {
  queue: KeyedQueue;
  /** the root for a write; throws no_library_root (or when closed) */
  writable(): FsContext;
}
