import { lstat, readdir, readFile, unlink, writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
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
  const st = await lstat(join(root, '.git')).catch(() => null);
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
