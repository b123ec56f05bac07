import { lstat, readdir, readFile, unlink, writeFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gitDirOf, unitOf } from '../layout.js';
import type { LibraryLogger } from '../context.js';
import type { Git } from './git.js';

/**
 * The root as a repository (docs/history.md): made on the first start,
 * used as it is when one exists; its `.gitignore` keeps the service's
 * bookkeeping out of history; and the lock files a killed git leaves behind
 * are removed at start.
 */

/** What git must not track: the root lock, temp and intent files (proposals' scratch files are temp files too). */
export const IGNORE_BLOCK = `# desk-library: the service's own bookkeeping, never history (docs/history.md)
/.desk-library.lock
/.desk-library.lock.tmp-*
.tmp-*
*.intent
`;

/** Writes `.gitignore`, or adds the block to one the operator has; true when it changed. */
export async function ensureIgnore(root: string): Promise<boolean> {
  const path = join(root, '.gitignore');
  // one fixed temp name: we hold the root lock, and what a kill mid-write left is removed here
  const tmp = join(root, '.tmp-gitignore');
  await unlink(tmp).catch(() => {});
  const st = await lstat(path).catch(() => null);
  if (st && !st.isFile()) return false; // a link or folder placed by hand: left alone
  const have = st ? await readFile(path, 'utf8') : '';
  if (have.includes(IGNORE_BLOCK)) return false;
  const text = have === '' ? IGNORE_BLOCK : `${have.replace(/\n?$/, '\n')}\n${IGNORE_BLOCK}`;
  await writeFile(tmp, text, { flush: true });
  await rename(tmp, path);
  return true;
}

/** `.git` is a folder, missing, or something else (a file of a linked work tree, a link): only a folder is used. */
export async function gitDirKind(root: string): Promise<'dir' | 'missing' | 'other'> {
  const st = await lstat(gitDirOf(root)).catch(() => null);
  if (!st) return 'missing';
  return st.isDirectory() ? 'dir' : 'other';
}

export async function initRepo(git: Git): Promise<void> {
  await git.ok(['init', '-q', '-b', 'main']);
}

/**
 * Removes `*.lock` files git left in `.git` (index.lock, HEAD.lock, a ref's
 * lock, packed-refs.lock, config.lock) when it was killed mid-write. Safe
 * only because this process holds the library root's lock: every git
 * process that writes this repository is one of ours, started by the
 * commit queue or an exclusive task, and none has started yet — so a lock
 * file here belongs to a process that is gone. Without our root lock
 * (`held` false) nothing is removed.
 */
export async function recoverLocks(gitDir: string, held: () => Promise<boolean>): Promise<string[]> {
  if (!(await held())) throw new Error('the library root lock is not ours: git lock files are left alone');
  const found: string[] = [];
  const walk = async (dir: string, rel: string, deep: boolean): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isFile() && e.name.endsWith('.lock')) {
        await unlink(join(dir, e.name)).catch(() => {});
        found.push(r);
      } else if (deep && e.isDirectory()) await walk(join(dir, e.name), r, true);
    }
  };
  await walk(gitDir, '', false);
  await walk(join(gitDir, 'refs'), 'refs', true);
  await walk(join(gitDir, 'logs'), 'logs', true);
  return found;
}

/** Logs what recoverLocks removed, once. */
export function reportLocks(logger: LibraryLogger, found: string[]): void {
  if (found.length) logger.warn({ locks: found }, 'history: removed git lock files a stopped git left behind');
}

/**
 * Brings the index to HEAD for `paths` (the whole index when none are given),
 * so a plain `git status` in the root shows no phantom changes. Built from
 * ids only: HEAD's entries from `ls-tree`, the index's from `ls-files`, the
 * difference handed to `update-index --index-info`. Never `git reset`,
 * which refreshes the index afterwards by hashing work-tree files through any
 * clean filter `.gitattributes` names, and never a checkout: the service
 * reads and writes the files, git only records them (docs/security.md, What
 * git runs). An entry the index already holds as HEAD does is left as it is,
 * stat data and all. Throws GitError.
 */
export async function indexToHead(git: Git, paths: readonly string[] = []): Promise<void> {
  const spec = paths.length ? ['--', ...paths] : [];
  const head = new Map<string, string>();
  const headOut = await git.run(['ls-tree', '-r', '-z', '--full-tree', 'HEAD', ...spec]);
  // no HEAD yet: the index should hold nothing of these paths
  if (headOut.code === 0) {
    for (const line of headOut.stdout.toString('utf8').split('\0')) {
      const tab = line.indexOf('\t');
      if (tab < 0) continue;
      const [mode, , id] = line.slice(0, tab).split(' ');
      head.set(line.slice(tab + 1), `${mode} ${id}`);
    }
  }
  /** path → its stage-0 entry, or null for a conflict's stages; and an id of each, which a removal names */
  const have = new Map<string, string | null>();
  const ids = new Map<string, string>();
  for (const line of (await git.ok(['ls-files', '-s', '-z', ...spec])).split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const [mode, id, stage] = line.slice(0, tab).split(' ');
    const p = line.slice(tab + 1);
    have.set(p, stage === '0' && !have.has(p) ? `${mode} ${id}` : null);
    ids.set(p, id!);
  }
  const info: string[] = [];
  // mode 0 drops every stage of a path (an id of the right length is all git asks of it); HEAD's entry then goes in at stage 0
  for (const [p, entry] of have) if (entry === null || !head.has(p)) info.push(`0 ${ids.get(p)}\t${p}`);
  for (const [p, entry] of head) if (have.get(p) !== entry) info.push(`${entry}\t${p}`);
  if (!info.length) return;
  await git.ok(['update-index', '-z', '--index-info'], { input: `${info.join('\0')}\0` });
}

/** A path the service reads or writes; every other path of HEAD is a teammate's, kept as the remote has it and never on disk. */
export const ownedPath = (p: string): boolean => p === '.gitignore' || unitOf(p) !== null;

/**
 * Marks the index entries of paths the service does not own (a teammate's
 * README, `templates/drafts/…`) skip-worktree, so `git status` in the root
 * does not list them as deleted: they are in HEAD, and on purpose never
 * written to disk (docs/history.md, "Sharing a library"). With no `paths`,
 * every such entry of the index that is not on disk. Only flags are set:
 * no file is read or written.
 */
export async function hideForeign(git: Git, paths?: readonly string[]): Promise<void> {
  let todo = paths;
  if (!todo) {
    // no index yet (a repository the start has just made): nothing to flag, and no git process to learn it
    if (!(await lstat(join(git.gitDir, 'index')).catch(() => null))) return;
    const listed = (await git.ok(['ls-files', '-v', '-z'])).split('\0').filter(Boolean);
    const root = dirname(git.gitDir);
    const out: string[] = [];
    for (const line of listed) {
      const p = line.slice(2);
      if (line[0] === 'H' && !ownedPath(p) && !(await lstat(join(root, p)).catch(() => null))) out.push(p);
    }
    todo = out;
  }
  if (!todo.length) return;
  await git.ok(['update-index', '-z', '--skip-worktree', '--stdin'], { input: `${todo.join('\0')}\0` });
}

/**
 * Marks skip-worktree those of `paths` that the index holds and the disk does
 * not: a teammate's file of a name this desk keeps undecided and never wrote
 * (one over its cap, `too_large`), which HEAD holds as the remote has it. So
 * `git status` does not list it as deleted, as for the paths the service does
 * not own. Only flags: no file is read or written.
 */
export async function hideAbsent(git: Git, paths: readonly string[]): Promise<void> {
  if (!paths.length) return;
  const listed = (await git.ok(['ls-files', '-v', '-z', '--', ...paths])).split('\0').filter(Boolean);
  const root = dirname(git.gitDir);
  const todo: string[] = [];
  for (const line of listed) {
    const p = line.slice(2);
    if (line[0] === 'H' && !(await lstat(join(root, p)).catch(() => null))) todo.push(p);
  }
  if (todo.length) await git.ok(['update-index', '-z', '--skip-worktree', '--stdin'], { input: `${todo.join('\0')}\0` });
}
