import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LibraryLogger } from '../context.js';
import type { FsContext } from '../disk/fs-safe.js';
import type { LockHolder } from '../disk/lock-holder.js';
import { LOCK_FILE } from '../disk/root-lock.js';
import { CommitQueue, type Job } from './commit-queue.js';
import { disabledHistory } from './disabled.js';
import { type Git, GitError, GitMissingError, gitAt } from './git.js';
import type { GitSpawner } from './spawner.js';
import { readCap } from '../disk/fs-safe.js';
import { fromEntry, Journal, toEntry } from './journal.js';
import * as read from './read.js';
import type { Recorder, RoundRecord } from './recorder.js';
import { ensureIgnore, gitDirKind, hideForeign, indexToHead, initRepo, ownedPath, recoverLocks, reportLocks } from './repo.js';
import { blobId, keyOf, type NameKey, type ObjectFormat, readAll, readName, readPaths, type Snapshot } from './snapshot.js';
import type { History } from './types.js';
import { gitDirOf, TRACKED_TOP } from '../layout.js';
import { unitOfKey } from '../unit.js';

export interface HistoryOptions {
  /** `Name <email>` (DESK_AUTHOR): every commit's committer, and the author of those no person asked for; default `desk <desk@localhost>` */
  author?: string;
  /**
   * The person behind a commit's `who` (a user's name), as its author; null
   * for none (a client address, a start's own commits): the author is then
   * `author` above. Asked when the commit is made. Default: never a person.
   */
  authorOf?: (who: string) => { name: string; email: string } | null;
  /** the git binary; default `git` on PATH */
  git?: string;
  /** the environment git's PATH comes from; default process.env */
  env?: NodeJS.ProcessEnv;
  /** test hook: throwing fails a commit at that step (the write still stands) */
  faults?: (step: string) => void | Promise<void>;
  /**
   * The paths a feature above history answers for at a start, which the look for changes made on disk
   * leaves alone (openLibrary passes the sync's, sync/owned.ts). Default: none.
   */
  owned?: (git: Git) => Promise<(path: string) => boolean>;
}

export const DEFAULT_AUTHOR = 'desk <desk@localhost>';

/** Those of the blobs whose size is over their path's read cap (readCap), asked of git without reading them. */
async function overCap(git: Git, files: readonly { path: string; id: string }[]): Promise<Set<string>> {
  const out = new Set<string>();
  if (!files.length) return out;
  const r = await git.run(['cat-file', '--batch-check'], { input: files.map((f) => `${f.id}\n`).join('') });
  if (r.code !== 0) return out;
  const lines = r.stdout.toString('utf8').split('\n');
  for (const [i, f] of files.entries()) {
    const m = /^[0-9a-f]{40,64} blob (\d+)$/.exec(lines[i] ?? '');
    if (m && Number(m[1]) > readCap(f.path)) out.add(f.path);
  }
  return out;
}

export function parseAuthor(s: string): { name: string; email: string } | null {
  const m = /^\s*([^<>\n]+?)\s*<([^<>\s]+)>\s*$/.exec(s);
  return m ? { name: m[1]!, email: m[2]! } : null;
}

export interface Opened {
  history: History;
  /** what the library's writes tell history, or null when history is off */
  recorder: Recorder | null;
  close(): Promise<void>;
}

const off = (why: string): Opened => ({ history: disabledHistory(why), recorder: null, close: async () => {} });

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
export async function openHistory(fs: FsContext, holder: LockHolder, logger: LibraryLogger, spawner: GitSpawner, o: HistoryOptions = {}): Promise<Opened> {
  const bin = o.git ?? 'git';
  const author = parseAuthor(o.author ?? DEFAULT_AUTHOR) ?? parseAuthor(DEFAULT_AUTHOR)!;
  const git = gitAt(fs.root, { bin, env: o.env, spawner });
  const kind = await gitDirKind(fs.root);
  if (kind === 'other') {
    const why = `${gitDirOf(fs.root)} is not a folder (a linked work tree or a link): the library keeps no history`;
    logger.warn({ history: false }, why);
    return off(why);
  }
  // every git process is a fork and exec that a loaded machine makes slow: the start runs as few as it can
  let format: ObjectFormat;
  let head: string | null;
  let locks: string[];
  try {
    if (kind === 'missing') await initRepo(git);
    locks = await recoverLocks(git.gitDir, () => lockIsOurs(fs.root, holder));
    // one process for both: the format's line always, HEAD's id on a second line when there is a commit (exit 1 when not)
    const r = await git.run(['rev-parse', '--show-object-format', '-q', '--verify', 'HEAD^{commit}']);
    const [f, h] = r.stdout.toString('utf8').split('\n');
    if (f !== 'sha1' && f !== 'sha256') throw new GitError(['rev-parse', '--show-object-format'], r);
    format = f;
    head = r.code === 0 && h ? h : null;
  } catch (e) {
    if (!(e instanceof GitMissingError)) throw e;
    const why = `git was not found (${bin} on PATH): the library keeps no history; install git and restart to keep it`;
    logger.warn({ history: false }, why);
    return off(why);
  }
  reportLocks(logger, locks);
  await ensureIgnore(fs.root);
  const journal = new Journal(fs.root, logger);
  const queue = new CommitQueue({ git, format, author, journal, logger, ...(o.authorOf ? { authorOf: o.authorOf } : {}), ...(o.faults ? { faults: o.faults } : {}), head });

  // 1. what a crash left queued, in order — less a batch HEAD already holds (its files not yet removed)
  const cut = (await journal.settleLanding(async (commit) => (await git.run(['merge-base', '--is-ancestor', commit, 'HEAD'])).code === 0)) || locks.length > 0;
  const left = journal.left();
  // index entries a commit cut short had staged go back to HEAD: its job is still in the journal
  if (head && (cut || left.length > 0)) {
    // by ids, never `git reset`: its refresh would hash the work tree through the repository's clean filters (repo.ts)
    await indexToHead(git, TRACKED_TOP).catch((e: Error) => logger.warn({ err: e.message }, 'history: the index was not brought back to HEAD; git status may show staged changes'));
  }
  for (const { name, entry } of left) queue.enqueue({ snapshot: fromEntry(entry), message: entry.message, who: entry.who, at: entry.at, journal: name });
  await queue.settle();

  // 2. the disk against HEAD: what no commit holds. Only paths the service owns: a teammate's other files are in HEAD and,
  // on purpose, not on disk. Nor the names a sync left diverged (their copy on disk differs from HEAD until a person
  // decides) or a round a crash cut short will write (sync.ts rolls it forward): neither is a change made here.
  const expected = new Map<string, string | null>(await queue.tree());
  const leave = o.owned ? await o.owned(git) : () => false;
  const disk = readAll(fs);
  const changed: Snapshot = new Map();
  for (const [p, b] of disk) if (!leave(p) && expected.get(p) !== blobId(b!, format)) changed.set(p, b);
  const gone: string[] = [];
  for (const p of expected.keys()) {
    if (p === '.gitignore' || disk.has(p) || !ownedPath(p) || leave(p)) continue;
    // absent from the scan: really gone, or odd (a link, a FIFO) and left as committed
    const again = readPaths(fs, [p]);
    if (again.get(p) === null) gone.push(p);
  }
  // a file over its cap was never written here (no write makes one; a sync never reads one): a teammate's, kept in HEAD
  // undecided, whose absence here is no deletion made on this desk
  const unread = await overCap(git, gone.map((p) => ({ path: p, id: expected.get(p)! })));
  for (const p of gone) if (!unread.has(p)) changed.set(p, null);
  // entries of a teammate's files a fast-forward put in the index: flagged so git status does not list them as deleted
  await hideForeign(git).catch((e: Error) => logger.warn({ err: e.message }, 'history: the index was not updated; git status may list files of the remote as deleted'));
  const ignore = readPaths(fs, ['.gitignore']).get('.gitignore');
  if (ignore && expected.get('.gitignore') !== blobId(ignore, format)) changed.set('.gitignore', ignore);
  const now = Date.now();
  const enqueue = (snapshot: Snapshot, message: string, who: string | null, at: number, keep: boolean) => {
    for (const [p, b] of snapshot) expected.set(p, b === null ? null : blobId(b, format));
    const job: Job = { snapshot, message, who, at, journal: keep ? journal.write(toEntry(snapshot, message, who, at)) : null };
    queue.enqueue(job);
  };
  if (!head) {
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

  const label = (key: NameKey) => {
    const u = unitOfKey(key);
    return u.kind === 'role' ? `role ${u.name}` : u.name;
  };
  const differs = (p: string, b: Buffer | null) => (b === null ? (expected.get(p) ?? null) !== null : expected.get(p) !== blobId(b, format));
  /**
   * The sync round under way, if any: a job touching a path it has written
   * waits behind the round's own commit, so history keeps the order in
   * which the writes of that path happened (recorder.ts).
   */
  let round: { paths: Set<string>; snapshot: Snapshot; behind: Job[] } | null = null;
  const queued = (snapshot: Snapshot, message: string, who: string | null, keep: boolean) => {
    const at = Date.now();
    for (const [p, b] of snapshot) expected.set(p, b === null ? null : blobId(b, format));
    const job: Job = { snapshot, message, who, at, journal: keep ? journal.write(toEntry(snapshot, message, who, at)) : null };
    if (round && [...snapshot.keys()].some((p) => round!.paths.has(p))) round.behind.push(job);
    else queue.enqueue(job);
  };
  // History never fails a write: a step that throws (its reads report odd files, they do not throw) costs that commit only
  const guarded =
    <A extends unknown[]>(f: (...a: A) => void) =>
    (...a: A) => {
      try {
        f(...a);
      } catch (e) {
        logger.error({ err: (e as Error).message }, 'history: a write could not be queued for its commit');
      }
    };
  const recorder: Recorder = {
    found: guarded((key: NameKey) => {
      const found: Snapshot = new Map([...readName(fs, key)].filter(([p, b]) => differs(p, b)));
      if (found.size) queued(found, `found on disk: ${label(key)}`, null, true);
    }),
    record: guarded((key: NameKey, message: string, who: string | null) => queued(readName(fs, key), message, who, true)),
    recordPaths: guarded((paths: readonly string[], message: string, who: string | null) => queued(readPaths(fs, paths.filter(read.validPath)), message, who, true)),
    round(): RoundRecord {
      const r = { paths: new Set<string>(), snapshot: new Map() as Snapshot, behind: [] as Job[] };
      round = r;
      const add = guarded((snap: Snapshot) => {
        for (const [p, b] of snap) {
          r.paths.add(p);
          r.snapshot.set(p, b);
          expected.set(p, b === null ? null : blobId(b, format));
        }
      });
      const end = (job: Job | null) => {
        if (round === r) round = null;
        if (job) queue.enqueue(job);
        for (const j of r.behind) queue.enqueue(j);
      };
      return {
        step: (key) => add(readName(fs, key)),
        stepPath: (path) => add(readPaths(fs, [path])),
        finish: ({ message, remote, head, fastForward, refs }) => {
          for (const [p, ref] of refs) if (!r.snapshot.has(p)) expected.set(p, ref?.id ?? null);
          end({ snapshot: r.snapshot, message, who: null, at: Date.now(), journal: null, merge: { remote, head, fastForward, refs } });
        },
        abandon: () => end(null),
      };
    },
  };

  // this history's kept walks: what a head reaches never changes, so the pages after the first read none again (read.ts)
  const kept = read.readCache();
  const history: History = {
    enabled: true,
    disabled: null,
    commit: (change) => recorder.recordPaths(change.paths, change.message, change.who ?? null),
    settle: () => queue.settle(),
    log: (path, page) => read.log(git, path, page, kept),
    show: (path, commit) => read.show(git, path, commit),
    showMany: (items) => read.showMany(git, items),
    recent: (page) => read.recent(git, page, kept),
    onCommit: (l) => queue.onCommit(l),
  };
  logger.info({ history: true }, 'history: every write is a git commit');
  return {
    history,
    recorder,
    async close() {
      await queue.settle();
      queue.close();
    },
  };
}
