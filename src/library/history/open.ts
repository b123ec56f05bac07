import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LibraryLogger } from '../context.js';
import type { FsContext } from '../disk/fs-safe.js';
import type { LockHolder } from '../disk/lock-holder.js';
import { LOCK_FILE } from '../disk/root-lock.js';
import { CommitQueue, type Job } from './commit-queue.js';
import { disabledHistory } from './disabled.js';
import { GitMissingError, gitAt } from './git.js';
import type { SlotHooks, WriteContext } from './hook.js';
import { fromEntry, Journal, toEntry } from './journal.js';
import * as read from './read.js';
import { ensureIgnore, gitDirKind, initRepo, recoverLocks, reportLocks } from './repo.js';
import { blobId, keyOf, type NameKey, type ObjectFormat, readAll, readName, readPaths, type Snapshot } from './snapshot.js';
import type { History } from './types.js';

export interface HistoryOptions {
  /** `Name <email>` (DESK_AUTHOR); default `desk <desk@localhost>` */
  author?: string;
  /** the git binary; default `git` on PATH */
  git?: string;
  /** the environment git's PATH comes from; default process.env */
  env?: NodeJS.ProcessEnv;
  /** test hook: throwing fails a commit at that step (the write still stands) */
  faults?: (step: string) => void | Promise<void>;
}

export const DEFAULT_AUTHOR = 'desk <desk@localhost>';

export function parseAuthor(s: string): { name: string; email: string } | null {
  const m = /^\s*([^<>\n]+?)\s*<([^<>\s]+)>\s*$/.exec(s);
  return m ? { name: m[1]!, email: m[2]! } : null;
}

export interface Opened {
  history: History;
  /** the slot hooks for the library's queue, or null when history is off */
  hooks: SlotHooks | null;
  close(): Promise<void>;
}

const off = (why: string): Opened => ({ history: disabledHistory(why), hooks: null, close: async () => {} });

/** True when `<root>/.desk-library.lock` names this process as its holder. */
async function lockIsOurs(root: string, holder: LockHolder): Promise<boolean> {
  const dir = join(root, LOCK_FILE);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const n of names.filter((x) => /^holder-[0-9a-f]{32}\.json$/.test(x))) {
    const h = JSON.parse(await readFile(join(dir, n), 'utf8').catch(() => '{}')) as Partial<LockHolder>;
    if (h.pid === holder.pid && h.started === holder.started) return true;
  }
  return false;
}

/**
 * History for a writable root whose lock this process holds (library.ts):
 * git found, the repository made or used, stale git locks removed, queued
 * commits a crash left committed, and what is on disk but in no commit
 * queued as `found on disk` — all before the first write is taken.
 */
export async function openHistory(fs: FsContext, holder: LockHolder, logger: LibraryLogger, o: HistoryOptions = {}): Promise<Opened> {
  const bin = o.git ?? 'git';
  const author = parseAuthor(o.author ?? DEFAULT_AUTHOR) ?? parseAuthor(DEFAULT_AUTHOR)!;
  const git = gitAt(fs.root, bin, o.env);
  const kind = await gitDirKind(fs.root);
  if (kind === 'other') {
    const why = `${join(fs.root, '.git')} is not a folder (a linked work tree or a link): the library keeps no history`;
    logger.warn({ history: false }, why);
    return off(why);
  }
  // every git process is a fork and exec that a loaded machine makes slow: the start runs as few as it can
  let format: ObjectFormat;
  let hadHead: boolean;
  let locks: string[];
  try {
    if (kind === 'missing') await initRepo(git);
    locks = await recoverLocks(git.gitDir, () => lockIsOurs(fs.root, holder));
    const [f, h] = await Promise.all([git.ok(['rev-parse', '--show-object-format']), git.run(['rev-parse', '-q', '--verify', 'HEAD^{commit}'])]);
    format = f.trim() === 'sha256' ? 'sha256' : 'sha1';
    hadHead = h.code === 0;
  } catch (e) {
    if (!(e instanceof GitMissingError)) throw e;
    const why = `git was not found (${bin} on PATH): the library keeps no history; install git and restart to keep it`;
    logger.warn({ history: false }, why);
    return off(why);
  }
  reportLocks(logger, locks);
  await ensureIgnore(fs.root);
  const journal = new Journal(git.gitDir, logger);
  const queue = new CommitQueue({ git, format, author, journal, logger, ...(o.faults ? { faults: o.faults } : {}) });

  // 1. what a crash left queued, in order — less a batch HEAD already holds (its files not yet removed)
  const cut = (await journal.settleLanding(async (commit) => (await git.run(['merge-base', '--is-ancestor', commit, 'HEAD'])).code === 0)) || locks.length > 0;
  const left = journal.left();
  // index entries a commit cut short had staged go back to HEAD: its job is still in the journal
  if (hadHead && (cut || left.length > 0)) await git.run(['reset', '-q', 'HEAD', '--', '.gitignore', 'templates', 'roles', 'proposals']);
  for (const { name, entry } of left) queue.enqueue({ snapshot: fromEntry(entry), message: entry.message, who: entry.who, at: entry.at, journal: name });
  await queue.settle();

  // 2. the disk against HEAD: what no commit holds
  const expected = new Map<string, string | null>(await queue.tree());
  const disk = readAll(fs);
  const changed: Snapshot = new Map();
  for (const [p, b] of disk) if (expected.get(p) !== blobId(b!, format)) changed.set(p, b);
  for (const p of expected.keys()) {
    if (p === '.gitignore' || disk.has(p)) continue;
    // absent from the scan: really gone, or odd (a link, a FIFO) and left as committed
    const again = readPaths(fs, [p]);
    if (again.get(p) === null) changed.set(p, null);
  }
  const ignore = readPaths(fs, ['.gitignore']).get('.gitignore');
  if (ignore && expected.get('.gitignore') !== blobId(ignore, format)) changed.set('.gitignore', ignore);
  const now = Date.now();
  const enqueue = (snapshot: Snapshot, message: string, who: string | null, at: number, keep: boolean) => {
    for (const [p, b] of snapshot) expected.set(p, b === null ? null : blobId(b, format));
    const job: Job = { snapshot, message, who, at, journal: keep ? journal.write(toEntry(snapshot, message, who, at)) : null };
    queue.enqueue(job);
  };
  if (!hadHead) {
    enqueue(changed, 'found on disk: the library at its first start', null, now, false);
  } else {
    const groups = new Map<string, Snapshot>();
    for (const [p, b] of changed) {
      const k = keyOf(p)?.replace(/^(template|role):/, (_, kind: string) => (kind === 'role' ? 'role ' : '')) ?? 'library files';
      if (!groups.has(k)) groups.set(k, new Map());
      groups.get(k)!.set(p, b);
    }
    for (const [k, snap] of [...groups].sort(([a], [b]) => (a === 'library files' ? -1 : b === 'library files' ? 1 : a.localeCompare(b)))) {
      enqueue(snap, `found on disk: ${k}`, null, now, false);
    }
  }
  if (left.length || changed.size) logger.info({ replayed: left.length, found: changed.size }, 'history: committing what the last run left and what was changed on disk');

  const label = (key: NameKey) => (key.startsWith('role:') ? `role ${key.slice(5)}` : key.slice(9));
  const differs = (p: string, b: Buffer | null) => (b === null ? (expected.get(p) ?? null) !== null : expected.get(p) !== blobId(b, format));
  // History never fails a write: a hook that throws (its reads report odd files, they do not throw) costs that commit only
  const guarded =
    <A extends unknown[]>(f: (...a: A) => void) =>
    (...a: A) => {
      try {
        f(...a);
      } catch (e) {
        logger.error({ err: (e as Error).message }, 'history: a write could not be queued for its commit');
      }
    };
  const hooks: SlotHooks = {
    before(key) {
      const snap = readName(fs, key);
      const found: Snapshot = new Map([...snap].filter(([p, b]) => differs(p, b)));
      if (found.size) enqueue(found, `found on disk: ${label(key)}`, null, Date.now(), true);
    },
    after(key, ctx: WriteContext | undefined) {
      // a write of the library's own API carries its context (hook.ts); one without is a sync's merge,
      // which commits its files itself (exclusive) — expectations follow HEAD once it has
      if (!ctx) return;
      const snap = readName(fs, key);
      const at = Date.now();
      const fallback = ctx.fallback;
      for (const [p, b] of snap) expected.set(p, b === null ? null : blobId(b, format));
      const file = journal.write(toEntry(snap, fallback, ctx.who, at));
      queue.enqueue({ snapshot: snap, message: ctx.message, who: ctx.who, at, journal: file });
    },
  };
  hooks.before = guarded(hooks.before);
  hooks.after = guarded(hooks.after);

  const history: History = {
    enabled: true,
    disabled: null,
    commit(change) {
      try {
        const snap = readPaths(fs, change.paths.filter(read.validPath));
        enqueue(snap, change.message, change.who ?? null, Date.now(), true);
      } catch (e) {
        logger.error({ err: (e as Error).message }, 'history: could not queue a commit');
      }
    },
    settle: () => queue.settle(),
    log: (path, page) => read.log(git, path, page),
    show: (path, commit) => read.show(git, path, commit),
    showMany: (items) => read.showMany(git, items),
    recent: (page) => read.recent(git, page),
    exclusive: async (task) => {
      await queue.settle();
      return queue.exclusive(task).finally(async () => {
        // what the task moved (a merge) is what HEAD holds now: expectations follow it
        const tree = await queue.tree().catch(() => null);
        if (tree && queue.pending === 0) {
          expected.clear();
          for (const [p, id] of tree) expected.set(p, id);
        }
      });
    },
    onCommit: (l) => queue.onCommit(l),
  };
  logger.info({ history: true }, 'history: every write is a git commit');
  return {
    history,
    hooks,
    async close() {
      await queue.settle();
      queue.close();
    },
  };
}
