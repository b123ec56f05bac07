import { opendir, realpath } from 'node:fs/promises';
import { harnessDir as defaultHarnessDir } from '../paths.js';
import { validateTemplate } from '../template/validate.js';
import type { LibraryContext, LibraryLogger } from './context.js';
import type { FsContext, OddFile } from './disk/fs-safe.js';
import { look } from './look.js';
import { listRoleEntries, roleEntry } from './roles/entries.js';
import { loadShipped, type Shipped } from './shipped.js';
import { AnswerMemo } from './memos/answer-memo.js';
import { KitTools } from './catalogue.js';
import { EntryCache } from './memos/entry-cache.js';
import { getTemplate, listTemplates } from './templates/read.js';
import { READ_ONLY_TEMPLATES } from './templates/read-only.js';
import type { LibraryReads } from './entries.js';
import { ValidationMemo } from './memos/validation-memo.js';
import { checkRoleName, checkTemplateName } from './layout.js';

/**
 * The library's read side on its own (docs/operations.md): what a library
 * root holds, as the service would answer it, for a process that is not the
 * service — the command line's `validate --library`. It takes no lock, runs
 * no recovery, opens no history, creates nothing: it may read a root a
 * running service holds, mid-write too, as the readers apply a pending
 * intent without finishing it (templates/read.ts, roles/entries.ts).
 *
 * openLibrary (library.ts) builds its context and answers its reads with the
 * same pieces: libraryContext, libraryReads, reportOnce.
 */

export interface ReaderOptions {
  /** The operator's folder, read as it is: never created, a missing one is refused (ENOENT). null: shipped only. */
  root: string | null;
  /** Shipped templates and built-in roles. Default: the package's `harness/`. */
  harnessDir?: string;
  /** Code-registered read-only templates, name → source. Default: READ_ONLY_TEMPLATES. */
  readOnlyTemplates?: ReadonlyMap<string, string>;
  /** pino-compatible; told each odd file once. Default: logs nothing. */
  logger?: LibraryLogger;
  /** Clock in ms, for the cache's racy-file rule. Default: Date.now. */
  now?: () => number;
}

/** The read calls of the Library contract (entries.ts): each looks at the disk afresh, and none writes. */
export type { LibraryReads };

export interface LibraryReader extends LibraryReads {
  /** the root's real path, or null when there is none */
  readonly root: string | null;
}

export const silentLogger: LibraryLogger = { info() {}, warn() {}, error() {} };

/** Odd files and folders (fs-safe.ts) are logged once each: reads meet them at every request. */
export function reportOnce(logger: LibraryLogger): (odd: OddFile) => void {
  const told = new Set<string>();
  return ({ path, reason }) => {
    const key = `${path}\0${reason}`;
    if (told.has(key)) return;
    told.add(key);
    logger.warn({ path, reason }, 'an odd file or folder in the library is left alone (docs/operations.md)');
  };
}

/** The context every reader and writer shares (context.ts), with empty caches and no diverged names. */
export function libraryContext(parts: {
  fs: FsContext | null;
  shipped: Shipped;
  readOnly: ReadonlyMap<string, string>;
  now: () => number;
  logger: LibraryLogger;
  validate?: typeof validateTemplate | undefined;
}): LibraryContext {
  return {
    fs: parts.fs,
    shipped: parts.shipped,
    readOnly: parts.readOnly,
    now: parts.now,
    entries: new EntryCache(),
    memo: new ValidationMemo(parts.validate ?? validateTemplate),
    kits: new KitTools(),
    answers: new AnswerMemo(),
    last: null,
    logger: parts.logger,
    diverged: { templates: new Map(), roles: new Map() },
  };
}

export function libraryReads(ctx: LibraryContext): LibraryReads {
  return {
    catalogue: async () => look(ctx).catalogue,
    listTemplates: () => listTemplates(ctx),
    async getTemplate(name, opts) {
      checkTemplateName(name);
      return getTemplate(ctx, name, opts?.card);
    },
    listRoles: async () => listRoleEntries(ctx),
    async getRole(name) {
      checkRoleName(name);
      return roleEntry(ctx, name);
    },
  };
}

/**
 * Opens a root for reading only. A root that is missing, not a folder, or
 * not listable is refused with its errno error (ENOENT, ENOTDIR, EACCES):
 * reading one as empty would check templates against the shipped names
 * alone and call that the library. The shipped files are not checked
 * (checkShipped): refusing a broken harness is the service's start, and a
 * reader answers what is there. Names a sync could not merge are known only
 * to the service that ran the sync, so none reads `diverged` here.
 */
export async function openLibraryReader(options: ReaderOptions): Promise<LibraryReader> {
  const logger = options.logger ?? silentLogger;
  const shipped = await loadShipped(options.harnessDir ?? defaultHarnessDir);
  let fs: FsContext | null = null;
  if (options.root !== null) {
    // the operator chose this folder, links and all; below it, nothing is followed
    const root = await realpath(options.root);
    await (await opendir(root)).close();
    fs = { root, report: reportOnce(logger) };
  }
  const ctx = libraryContext({ fs, shipped, readOnly: options.readOnlyTemplates ?? READ_ONLY_TEMPLATES, now: options.now ?? Date.now, logger });
  return { root: fs?.root ?? null, ...libraryReads(ctx) };
}
