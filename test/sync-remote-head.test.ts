/**
 * The remote's HEAD (docs/history.md, Sync): a bare repository made with a
 * plain `git init --bare` names `master` while a desk pushes `main`, so a
 * teammate's `git clone` would check out nothing. A remote that is a folder
 * here gets its HEAD set to the desk's branch when it names a missing one;
 * any other mismatch, and a URL remote, is a warning in the log.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLibrary } from '../src/library/library.js';
import { LibrarySync } from '../src/library/sync/sync.js';
import type { Library } from '../src/library/types.js';
import { ALPHA, type Fixture, fixture } from './http-fixture.js';
import { testSpawner } from './test-spawner.js';

const HOUR = 3_600_000;
let dir: string;
let bare: string;
let fx: Fixture;
let library: Library;
let sync: LibrarySync | null;
const warned: object[] = [];
const logger = { info() {}, warn: (o: object) => void warned.push(o), error() {} };

// no user or system config: `init.defaultBranch` of the machine running the tests changes nothing
const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } }).trim();

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-remote-head-'));
  bare = join(dir, 'remote.git');
  // what a plain `git init --bare` makes: HEAD on master
  git('init', '--bare', '-q', bare);
  expect(git('--git-dir', bare, 'symbolic-ref', 'HEAD')).toBe('refs/heads/master');
  fx = await fixture();
  library = await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness });
  await library.saveTemplate('alpha', ALPHA.replace('purpose: one worker then a gate', 'purpose: shared'), { who: 'test' });
  sync = null;
  warned.length = 0;
});

afterEach(async () => {
  await sync?.stop();
  await library.close();
  await fx.cleanup();
  await rm(dir, { recursive: true, force: true });
});

async function syncWith(remote: string): Promise<void> {
  sync = new LibrarySync(library, { remote, intervalMs: HOUR, logger });
  await sync.start();
  expect((await sync.sync()).last_error).toBeNull();
}

describe("the remote's HEAD", () => {
  it('a bare remote on disk: the first push moves HEAD to the desk branch, and a clone checks out the library', async () => {
    await syncWith(bare);
    expect(git('--git-dir', bare, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    git('clone', '-q', bare, join(dir, 'x'));
    expect(existsSync(join(dir, 'x', 'templates', 'alpha.yaml'))).toBe(true);
    expect(warned).toEqual([]);
  });

  it('a HEAD on a branch the remote has is left alone, and the log says so', async () => {
    const other = join(dir, 'other');
    git('init', '-q', '-b', 'master', other);
    git('-C', other, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'not the library');
    git('-C', other, 'push', '-q', bare, 'master');
    await syncWith(bare);
    expect(git('--git-dir', bare, 'symbolic-ref', 'HEAD')).toBe('refs/heads/master');
    expect(git('--git-dir', bare, 'rev-parse', '--verify', 'refs/heads/main')).toMatch(/^[0-9a-f]{40}$/);
    expect(warned).toEqual([expect.objectContaining({ branch: 'main', head: 'refs/heads/master' })]);
  });

  it('a URL remote: HEAD is not touched from here, one warning is logged', async () => {
    await syncWith(`file://${bare}`);
    expect(git('--git-dir', bare, 'symbolic-ref', 'HEAD')).toBe('refs/heads/master');
    expect(git('--git-dir', bare, 'rev-parse', '--verify', 'refs/heads/main')).toMatch(/^[0-9a-f]{40}$/);
    // a missing HEAD: a clone would check out nothing
    expect(warned).toEqual([expect.objectContaining({ branch: 'main', head: null })]);
    // said once a run, not at every round
    await sync!.sync();
    expect(warned).toHaveLength(1);
  });

  it('a remote made with --initial-branch=main: no warning, HEAD unchanged', async () => {
    await rm(bare, { recursive: true });
    git('init', '--bare', '-q', '--initial-branch=main', bare);
    await syncWith(`file://${bare}`);
    expect(git('--git-dir', bare, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(warned).toEqual([]);
  });
});
