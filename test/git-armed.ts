/**
 * An "armed" repository for the tests of what git never runs (docs/security.md,
 * What git runs): its config and attributes name clean and smudge filters, a
 * textconv, a merge driver, an fsmonitor, hooks and credential helpers, each
 * leaving a marker file when run. Shared by test/git-filters.test.ts and
 * test/git-filters-kill.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const ENV = () => ({ PATH: process.env.PATH ?? '', HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' });

/** git as an operator runs it: the repository's own config applies */
export const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: ENV() });
/** git for the test's own reads of an armed root: plumbing that reads no file, with the fsmonitor and hooks turned off */
export const look = (cwd: string, ...args: string[]) => git(cwd, '-c', 'core.fsmonitor=false', '-c', `core.hooksPath=${join(cwd, 'no-such-hooks')}`, ...args);
export const gitBytes = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.fsmonitor=false', '-c', `core.hooksPath=${join(cwd, 'no-such-hooks')}`, ...args], { cwd, env: ENV() });

const HOOKS = ['pre-commit', 'post-commit', 'post-checkout', 'post-merge', 'pre-push', 'pre-auto-gc', 'reference-transaction', 'post-index-change'];

/** A script that leaves a file named `name` in `markers`, then passes its stdin through changed (a filter that ran would show in the bytes). */
async function script(path: string, markers: string, name: string): Promise<void> {
  await writeFile(path, `#!/bin/sh\n: > '${join(markers, name)}'\nprintf 'FILTERED '\ncat\nexit 0\n`);
  await chmod(path, 0o755);
}

/** A repository at `root` whose config, `.gitattributes` and `.git/info/attributes` name programs for every file, each leaving a marker when run. */
export async function armed(root: string, base: string): Promise<string> {
  const markers = join(base, 'markers');
  const bin = join(base, 'bin');
  const hooks = join(base, 'hooks');
  await mkdir(markers);
  await mkdir(bin);
  await mkdir(hooks);
  git(base, 'init', '-q', '-b', 'main', root);
  for (const s of ['clean', 'smudge', 'process', 'textconv', 'merge', 'fsmonitor', 'sshcommand', 'askpass', 'credential']) await script(join(bin, s), markers, s);
  for (const h of HOOKS) await script(join(hooks, h), markers, `hook-${h}`);
  const set = (k: string, v: string) => git(root, 'config', k, v);
  set('filter.evil.clean', join(bin, 'clean'));
  set('filter.evil.smudge', join(bin, 'smudge'));
  set('filter.evil.required', 'true');
  set('diff.evil.textconv', join(bin, 'textconv'));
  set('merge.evil.driver', `${join(bin, 'merge')} %O %A %B`);
  set('core.fsmonitor', join(bin, 'fsmonitor'));
  set('core.hooksPath', hooks);
  set('core.sshCommand', join(bin, 'sshcommand'));
  set('core.askPass', join(bin, 'askpass'));
  set('credential.helper', `!${join(bin, 'credential')}`);
  const attrs = '* filter=evil diff=evil merge=evil\n';
  await writeFile(join(root, '.gitattributes'), attrs);
  await writeFile(join(root, '.git', 'info', 'attributes'), attrs);
  return markers;
}

/** `git status` by hand on an armed root, with its filter driver emptied (no command: git hashes the bytes), and no fsmonitor, hooks or index write. */
export const statusUnfiltered = (root: string, ...paths: string[]) =>
  git(
    root,
    '--no-optional-locks',
    ...['filter.evil.clean=', 'filter.evil.smudge=', 'filter.evil.process=', 'filter.evil.required=false', 'core.fsmonitor=false', `core.hooksPath=${join(root, 'no-such-hooks')}`].flatMap((kv) => ['-c', kv]),
    'status',
    '--porcelain',
    '--',
    ...paths,
  );
