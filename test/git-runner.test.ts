/**
 * The one git runner (src/library/history/git.ts; docs/operations.md, What
 * git sees): history and sync run git with the same fixed settings, so a
 * repository whose own config names hooks and an fsmonitor runs none of
 * them, the host's GIT_* variables never steer git, and a remote that starts
 * with `-` is a repository to git, never an option.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LibrarySync } from '../src/library/sync/sync.js';
import type { Library } from '../src/library/types.js';
import { fixture, tempDir, tpl } from './library-helpers.js';

const HOUR = 3_600_000;

/** git as an operator runs it in a shell: the repository's own config applies */
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

/** Every hook a history or sync operation could start, each leaving a file named after it in `markers`. */
const HOOKS = [
  'pre-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'post-checkout',
  'post-merge',
  'pre-push',
  'pre-auto-gc',
  'post-rewrite',
  'reference-transaction',
  'post-index-change',
  'fsmonitor-watchman',
];

async function script(path: string, marker: string): Promise<void> {
  await writeFile(path, `#!/bin/sh\n: > '${marker}'\nexit 0\n`);
  await chmod(path, 0o755);
}

/** A repository at `root` whose `.git/config` sets `core.hooksPath` to a folder of hooks and `core.fsmonitor` to a script, all writing into `markers`. */
async function trapped(root: string, base: string): Promise<string> {
  const markers = join(base, 'markers');
  const hooks = join(base, 'hooks');
  await mkdir(markers);
  await mkdir(hooks);
  git(base, 'init', '-q', '-b', 'main', root);
  for (const h of HOOKS) {
    await script(join(hooks, h), join(markers, h));
    // and git's default place, should the setting be dropped rather than overridden
    await script(join(root, '.git', 'hooks', h), join(markers, `default-${h}`));
  }
  // and a folder inside the git dir, where whoever writes the config could also write: the runner must not use one
  await mkdir(join(root, '.git', 'desk-no-hooks'));
  for (const h of HOOKS) await script(join(root, '.git', 'desk-no-hooks', h), join(markers, `inside-${h}`));
  await script(join(base, 'fsmonitor'), join(markers, 'fsmonitor'));
  git(root, 'config', 'core.hooksPath', hooks);
  git(root, 'config', 'core.fsmonitor', join(base, 'fsmonitor'));
  return markers;
}

const bareAt = (path: string) => execFileSync('git', ['init', '--bare', '-q', '-b', 'main', path]);
const branchOf = (bare: string) => execFileSync('git', ['--git-dir', bare, 'rev-parse', '-q', '--verify', 'refs/heads/main'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } }).trim();

let libraries: Library[] = [];
let syncs: LibrarySync[] = [];
let dirs: string[] = [];
const savedEnv = { ...process.env };

afterEach(async () => {
  for (const s of syncs) await s.stop();
  for (const l of libraries) await l.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  [libraries, syncs, dirs] = [[], [], []];
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
});

async function desk(opts: { remote: string; trapped?: boolean }) {
  const f = await fixture();
  dirs.push(f.base);
  const markers = opts.trapped ? await trapped(f.root, f.base) : null;
  const library = await f.open();
  libraries.push(library);
  const sync = new LibrarySync(library, { remote: opts.remote, intervalMs: HOUR });
  syncs.push(sync);
  return { f, library, sync, markers };
}

describe('every git call runs with the same fixed settings', () => {
  it('the fixture is live: git run by hand in that repository starts its hooks and its fsmonitor', async () => {
    const base = await tempDir();
    dirs.push(base);
    const root = join(base, 'root');
    const markers = await trapped(root, base);
    await writeFile(join(root, 'a.txt'), 'a');
    git(root, 'add', 'a.txt');
    git(root, 'status', '--porcelain');
    git(root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'a');
    const ran = await readdir(markers);
    expect(ran).toEqual(expect.arrayContaining(['fsmonitor', 'pre-commit', 'post-commit', 'reference-transaction', 'post-index-change']));
  });

  it('history and sync run none of the hooks or the fsmonitor the repository config names', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const bare = join(dir, 'team.git');
    bareAt(bare);
    // another desk pushes first: the trapped desk fetches, merges and pushes over it
    const other = await desk({ remote: bare });
    await other.library.saveTemplate('alpha', tpl('alpha', 'from the other desk'));
    await other.library.history.settle();
    await other.sync.start();
    expect((await other.sync.sync()).last_error).toBeNull();
    const first = branchOf(bare);

    const d = await desk({ remote: bare, trapped: true });
    await d.library.saveTemplate('beta', tpl('beta', 'from this desk'));
    await d.library.history.settle();
    expect(await d.library.history.recent({ limit: 5 })).toEqual(expect.arrayContaining([expect.objectContaining({ paths: expect.arrayContaining(['templates/beta.yaml']) })]));
    await d.sync.start();
    const s = await d.sync.sync();
    expect(s).toMatchObject({ last_error: null, ahead: 0, behind: 0 });
    expect((await d.library.getTemplate('alpha'))?.source).toBe(tpl('alpha', 'from the other desk'));
    await d.library.saveTemplate('beta', tpl('beta', 'again'));
    await d.library.history.settle();
    expect(await d.sync.sync()).toMatchObject({ last_error: null, ahead: 0 });
    // this desk's push carried the other desk's commit along
    expect(branchOf(bare)).toBe(git(d.f.root, 'rev-parse', 'HEAD').trim());
    expect(git(d.f.root, 'merge-base', '--is-ancestor', first, 'HEAD')).toBe('');

    expect(await readdir(d.markers!)).toEqual([]);
  });

  it('GIT_* variables of the service environment never reach git', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const bare = join(dir, 'team.git');
    bareAt(bare);
    // a decoy repository the variables point at, and hooks the variables would turn on
    const decoy = join(dir, 'decoy');
    git(dir, 'init', '-q', '-b', 'main', decoy);
    const markers = join(dir, 'markers');
    const hooks = join(dir, 'hooks');
    await mkdir(markers);
    await mkdir(hooks);
    for (const h of HOOKS) await script(join(hooks, h), join(markers, h));
    await script(join(dir, 'fsmonitor'), join(markers, 'fsmonitor'));
    Object.assign(process.env, {
      GIT_DIR: join(decoy, '.git'),
      GIT_WORK_TREE: decoy,
      GIT_INDEX_FILE: join(decoy, '.git', 'index'),
      GIT_CONFIG_PARAMETERS: `'core.hooksPath'='${hooks}'`,
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.fsmonitor',
      GIT_CONFIG_VALUE_0: join(dir, 'fsmonitor'),
    });
    const d = await desk({ remote: bare });
    await d.library.saveTemplate('alpha', tpl('alpha', 'mine'));
    await d.library.history.settle();
    await d.sync.start();
    expect(await d.sync.sync()).toMatchObject({ last_error: null, ahead: 0 });

    // the commits are the root's and the remote's, none the decoy's
    expect(git(d.f.root, 'log', '-1', '--format=%s', '--', 'templates/alpha.yaml').trim()).toBe('save alpha (edited)');
    expect(branchOf(bare)).toBe(git(d.f.root, 'rev-parse', 'HEAD').trim());
    expect(() => git(decoy, 'rev-parse', '-q', '--verify', 'HEAD')).toThrow();
    expect(await readdir(markers)).toEqual([]);
  });
});

describe('a remote that starts with a dash', () => {
  it('is a repository to fetch and push, never an option: `--upload-pack=<program>` runs nothing', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const marker = join(dir, 'ran');
    await script(join(dir, 'program'), marker);
    const d = await desk({ remote: `--upload-pack=${join(dir, 'program')}` });
    await d.sync.start();
    await d.library.saveTemplate('alpha', tpl('alpha', 'mine'));
    await d.library.history.settle();
    const s = await d.sync.sync();
    expect(s.last_error).not.toBeNull();
    await expect(readFile(marker)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('`-x`, a bare repository named so beside the root, reaches git after --end-of-options for fetch and push', async () => {
    // a git on PATH that logs each call's exit code and arguments, then answers as the real one
    const dir = await tempDir();
    dirs.push(dir);
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const bin = join(dir, 'bin');
    const log = join(dir, 'calls');
    await mkdir(bin);
    await writeFile(
      join(bin, 'git'),
      `#!/bin/sh\n'${real}' "$@"\nrc=$?\n{ printf '%s' "$rc"; for a in "$@"; do printf '\\037%s' "$a"; done; printf '\\036'; } >> '${log}'\nexit $rc\n`,
    );
    await chmod(join(bin, 'git'), 0o755);
    process.env.PATH = `${bin}:${process.env.PATH ?? ''}`;

    const d = await desk({ remote: '-x' });
    // relative to the root, where git runs
    bareAt(join(d.f.root, '-x'));
    await d.sync.start();
    await d.library.saveTemplate('alpha', tpl('alpha', 'mine'));
    await d.library.history.settle();
    await d.sync.sync();
    const calls = async () =>
      (await readFile(log, 'utf8').catch(() => ''))
        .split('\x1e')
        .filter(Boolean)
        .map((c) => {
          const [rc, ...args] = c.split('\x1f');
          return { rc: Number(rc), args };
        });
    // the push after the save's commit runs on its own; wait for it
    while (!(await calls()).some((c) => c.args.includes('push'))) await new Promise((r) => setTimeout(r, 20));
    const remoteCalls = (await calls()).filter((c) => c.args.includes('fetch') || c.args.includes('push'));
    expect(remoteCalls.map((c) => c.args.find((a) => a === 'fetch' || a === 'push')).sort()).toEqual(expect.arrayContaining(['fetch', 'push']));
    for (const c of remoteCalls) {
      expect(c.args[c.args.indexOf('-x') - 1]).toBe('--end-of-options');
      // 129 is git's answer to an option it does not know: `-x` was never read as one
      expect(c.rc).not.toBe(129);
    }
  });
});
