/**
 * git records bytes and never runs what the repository names
 * (docs/security.md, What git runs): a root whose config and attributes name
 * clean and smudge filters, a textconv, a merge driver, an fsmonitor and
 * hooks runs none of them through a save, a reset, a restore, a start that
 * finds files on disk and resets the index, or a sync round — and what is
 * committed is what is on disk (the real server killed with SIGKILL right
 * after a save and started again: test/git-filters-kill.test.ts, in
 * `npm run test:proof`). And a remote head holding a link or a
 * submodule at a path of the service's, or a `..` or `.git` entry, is never
 * carried into HEAD or the work tree.
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { restoreVersion, templateVersions } from '../src/library/history/versions.js';
import { gitAt } from '../src/library/history/git.js';
import { GitSpawner } from '../src/library/history/spawner.js';
import { LibrarySync } from '../src/library/sync/sync.js';
import type { Library } from '../src/library/types.js';
import { armed, ENV, git, gitBytes, look } from './git-armed.js';
import { fixture, tempDir, tpl } from './library-helpers.js';

const HOUR = 3_600_000;

/** Every tracked file HEAD holds under the service's folders, with its committed bytes. */
function committed(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const p of look(root, 'ls-tree', '-r', '--name-only', '-z', 'HEAD', '--', 'templates', 'roles', 'proposals', '.gitignore').split('\0').filter(Boolean)) {
    out.set(p, gitBytes(root, 'cat-file', 'blob', `HEAD:${p}`));
  }
  return out;
}

/** HEAD's blobs equal the bytes on disk, and the index holds HEAD's ids. */
async function sameAsDisk(root: string): Promise<void> {
  const files = committed(root);
  expect(files.size).toBeGreaterThan(0);
  for (const [p, bytes] of files) expect(bytes.equals(await readFile(join(root, p))), p).toBe(true);
  const head = look(root, 'ls-tree', '-r', 'HEAD', '--', 'templates', 'roles', 'proposals', '.gitignore');
  const index = look(root, 'ls-files', '-s', '--', 'templates', 'roles', 'proposals', '.gitignore');
  const ids = (s: string, at: number) => s.split('\n').filter(Boolean).map((l) => `${l.split(/\s/)[at]} ${l.split('\t')[1]}`).sort();
  expect(ids(index, 1)).toEqual(ids(head, 2));
}

const bareAt = (path: string) => execFileSync('git', ['init', '--bare', '-q', '-b', 'main', path], { env: ENV() });

let libraries: Library[] = [];
let syncs: LibrarySync[] = [];
let dirs: string[] = [];

afterEach(async () => {
  for (const s of syncs) await s.stop();
  for (const l of libraries) await l.close().catch(() => {});
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  [libraries, syncs, dirs] = [[], [], []];
});

async function desk(remote: string, arm = false) {
  const f = await fixture();
  dirs.push(f.base);
  const markers = arm ? await armed(f.root, f.base) : null;
  const library = await f.open();
  libraries.push(library);
  const sync = new LibrarySync(library, { remote, intervalMs: HOUR });
  syncs.push(sync);
  return { f, library, sync, markers };
}

describe('attributes and config never change what git records', () => {
  it('the fixture is live: git run by hand there runs the clean filter and the textconv', async () => {
    const base = await tempDir();
    dirs.push(base);
    const root = join(base, 'root');
    const markers = await armed(root, base);
    await writeFile(join(root, 'a.txt'), 'a\n');
    git(root, 'add', 'a.txt');
    git(root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'a');
    await writeFile(join(root, 'a.txt'), 'b\n');
    git(root, 'show', 'HEAD');
    git(root, 'reset', '-q', 'HEAD', '--', 'a.txt');
    expect(await readdir(markers)).toEqual(expect.arrayContaining(['clean', 'textconv', 'fsmonitor']));
    expect(git(root, 'cat-file', 'blob', 'HEAD:a.txt')).toBe('FILTERED a\n');
  });

  it('save, reset, restore, a start that finds files and resets the index, and sync rounds run none of them; HEAD holds the bytes on disk', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const bare = join(dir, 'team.git');
    bareAt(bare);
    const other = await desk(bare);
    await other.library.saveTemplate('delta', tpl('delta', 'from the other desk'));
    await other.library.history.settle();
    await other.sync.start();
    expect((await other.sync.sync()).last_error).toBeNull();

    const d = await desk(bare, true);
    const { f, markers } = d;
    await d.library.saveTemplate('alpha', tpl('alpha', 'one'));
    await d.library.history.settle();
    const first = look(f.root, 'rev-parse', 'HEAD').trim();
    await d.library.saveTemplate('alpha', tpl('alpha', 'two'));
    await d.library.saveTemplate('gamma', tpl('gamma', 'custom'));
    await d.library.history.settle();
    await d.library.resetTemplate('alpha');
    await d.library.history.settle();
    await restoreVersion(d.library, templateVersions, 'alpha', first, {});
    await d.library.history.settle();
    expect((await d.library.getTemplate('alpha'))?.source).toBe(tpl('alpha', 'one'));
    await sameAsDisk(f.root);

    // closed: a file changed by hand, an index entry staged by hand, and a lock a killed git left
    await d.sync.stop();
    await d.library.close();
    await writeFile(join(f.root, 'templates', 'gamma.yaml'), tpl('gamma', 'edited by hand'));
    const stray = execFileSync('git', ['hash-object', '-w', '--no-filters', '--stdin'], { cwd: f.root, input: 'staged by hand\n', env: ENV() }).toString().trim();
    look(f.root, 'update-index', '--cacheinfo', `100644,${stray},templates/alpha.yaml`);
    await writeFile(join(f.root, '.git', 'index.lock'), '');
    const library = await f.open();
    libraries.push(library);
    await library.history.settle();
    expect(look(f.root, 'log', '-1', '--format=%s', '--', 'templates/gamma.yaml').trim()).toBe('found on disk: gamma');
    await sameAsDisk(f.root);

    const sync = new LibrarySync(library, { remote: bare, intervalMs: HOUR });
    syncs.push(sync);
    await sync.start();
    // a merge: both desks have commits of their own
    expect(await sync.sync()).toMatchObject({ last_error: null, ahead: 0, behind: 0 });
    expect((await library.getTemplate('delta'))?.source).toBe(tpl('delta', 'from the other desk'));
    await sameAsDisk(f.root);
    // a fast-forward: the other desk takes the merge, saves on top, and this desk has nothing of its own since
    expect((await other.sync.sync()).last_error).toBeNull();
    await other.library.saveTemplate('delta', tpl('delta', 'again'));
    await other.library.history.settle();
    expect((await other.sync.sync()).last_error).toBeNull();
    const theirs = gitBytes(bare, 'rev-parse', 'refs/heads/main').toString().trim();
    expect(await sync.sync()).toMatchObject({ last_error: null, ahead: 0, behind: 0 });
    expect(look(f.root, 'rev-parse', 'HEAD').trim()).toBe(theirs);
    await sameAsDisk(f.root);

    expect(await readdir(markers!)).toEqual([]);
  });
});

describe('transports that run programs never run', () => {
  it('a fetch from an ext:: remote through the runner fails without running its command, even when the repository config allows ext', async () => {
    const f = await fixture();
    dirs.push(f.base);
    git(f.base, 'init', '-q', '-b', 'main', f.root);
    git(f.root, 'config', 'protocol.allow', 'always');
    git(f.root, 'config', 'protocol.ext.allow', 'always');
    git(f.root, 'config', 'protocol.fd.allow', 'always');
    const marker = join(f.base, 'ran');
    // the fixture is live: git by hand, with that config, runs the command
    expect(() => git(f.root, 'fetch', `ext::sh -c touch% ${marker}`, 'main')).toThrow();
    expect(await readFile(marker)).toBeDefined();
    await rm(marker);

    const spawner = new GitSpawner();
    onTestFinished(() => spawner.close());
    const g = gitAt(f.root, { spawner });
    const r = await g.run(['fetch', '--end-of-options', `ext::sh -c touch% ${marker}`, 'main']);
    expect(r.code).not.toBe(0);
    await expect(readFile(marker)).rejects.toMatchObject({ code: 'ENOENT' });
    // and a remote a `url.*.insteadOf` of that config rewrites into ext::
    git(f.root, 'config', `url.ext::sh -c touch% ${marker}% #.insteadOf`, 'https://team.example/');
    const r2 = await g.run(['fetch', '--end-of-options', 'https://team.example/library.git', 'main']);
    expect(r2.code).not.toBe(0);
    await expect(readFile(marker)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

/** Writes a commit into the bare `remote` from raw objects (no checks of git's own), on `refs/heads/main`, and returns it. */
function craft(remote: string, entries: { mode: string; path: string; data?: string; id?: string }[], parent?: string): string {
  const g = (input: string | Buffer, ...args: string[]) => execFileSync('git', ['--git-dir', remote, ...args], { input, env: ENV() }).toString().trim();
  const blob = (data: string) => g(data, 'hash-object', '-w', '--stdin');
  // a tree of trees, built bottom up with mktree (which takes any name)
  const build = (items: { mode: string; name: string; id: string }[]): string =>
    g(items.map((i) => `${i.mode} ${i.mode === '040000' ? 'tree' : i.mode === '160000' ? 'commit' : 'blob'} ${i.id}\t${i.name}`).join('\n') + '\n', 'mktree', '--missing');
  const tree = (list: typeof entries): string => {
    const here: { mode: string; name: string; id: string }[] = [];
    const sub = new Map<string, typeof entries>();
    for (const e of list) {
      const [head, ...rest] = e.path.split('/');
      if (rest.length) sub.set(head!, [...(sub.get(head!) ?? []), { ...e, path: rest.join('/') }]);
      else here.push({ mode: e.mode, name: head!, id: e.id ?? blob(e.data ?? '') });
    }
    for (const [name, l] of sub) here.push({ mode: '040000', name, id: tree(l) });
    return build(here);
  };
  const t = tree(entries);
  const c = execFileSync('git', ['--git-dir', remote, 'commit-tree', t, ...(parent ? ['-p', parent] : []), '-m', 'crafted'], {
    env: { ...ENV(), GIT_AUTHOR_NAME: 'x', GIT_AUTHOR_EMAIL: 'x@x', GIT_COMMITTER_NAME: 'x', GIT_COMMITTER_EMAIL: 'x@x' },
  })
    .toString()
    .trim();
  g('', 'update-ref', 'refs/heads/main', c);
  return c;
}

describe('a hostile remote tree is never carried', () => {
  const cases: [string, { mode: string; path: string; data?: string; id?: string }[], 'fsck' | 'check'][] = [
    ['a link at a template path', [{ mode: '120000', path: 'templates/x.yaml', data: '/etc/passwd' }], 'check'],
    ['a link where a role folder is', [{ mode: '120000', path: 'roles/worker', data: '/etc' }], 'check'],
    ['a link for the templates folder', [{ mode: '120000', path: 'templates', data: '/etc' }], 'check'],
    ['a submodule at a role file', [{ mode: '160000', path: 'roles/worker/role.md', id: 'a'.repeat(40) }], 'check'],
    ['a `..` entry', [{ mode: '100644', path: 'templates/../x.yaml', data: 'x' }], 'fsck'],
    ['a `.git` folder', [{ mode: '100644', path: '.git/config', data: '[core]\n\tfsmonitor = touch /tmp/x\n' }], 'fsck'],
  ];

  for (const [what, entries, by] of cases) {
    it(`${what}: the round is refused (${by === 'fsck' ? 'at fetch' : 'before merging'}), HEAD and the work tree never hold it`, async () => {
      const dir = await tempDir();
      dirs.push(dir);
      const bare = join(dir, 'team.git');
      bareAt(bare);
      const d = await desk(bare);
      await d.library.saveTemplate('alpha', tpl('alpha', 'mine'));
      await d.library.history.settle();
      await d.sync.start();
      expect((await d.sync.sync()).last_error).toBeNull();
      const mine = look(d.f.root, 'rev-parse', 'HEAD').trim();
      // on top of this desk's own head: without the checks, the round would simply fast-forward onto it
      const alpha = entries.some((e) => e.path === 'templates') ? [] : [{ mode: '100644', path: 'templates/alpha.yaml', data: tpl('alpha', 'mine') }];
      const bad = craft(bare, [...alpha, ...entries], mine);

      const s = await d.sync.sync();
      expect(s.last_error).not.toBeNull();
      expect(look(d.f.root, 'rev-parse', 'HEAD').trim()).toBe(mine);
      expect(look(d.f.root, 'ls-tree', '-r', 'HEAD').split('\n').filter((l) => /^(120000|160000)/.test(l))).toEqual([]);
      if (by === 'fsck') expect(() => look(d.f.root, 'cat-file', '-e', bad)).toThrow();
      await expect(readFile(join(d.f.root, 'templates', 'x.yaml'))).rejects.toMatchObject({ code: 'ENOENT' });
      expect((await readdir(join(d.f.root, 'roles'), { withFileTypes: true }).catch(() => [])).filter((e) => e.isSymbolicLink())).toEqual([]);
      expect(await readFile(join(d.f.root, 'templates', 'alpha.yaml'), 'utf8')).toBe(tpl('alpha', 'mine'));
    });
  }

  it('a link outside the service paths is no business of the service: the round takes the head', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const bare = join(dir, 'team.git');
    bareAt(bare);
    const d = await desk(bare);
    await d.library.saveTemplate('alpha', tpl('alpha', 'mine'));
    await d.library.history.settle();
    await d.sync.start();
    expect((await d.sync.sync()).last_error).toBeNull();
    const mine = look(d.f.root, 'rev-parse', 'HEAD').trim();
    const tracked = look(d.f.root, 'ls-tree', '-r', 'HEAD')
      .split('\n')
      .filter(Boolean)
      .map((l) => ({ mode: l.split(' ')[0]!, path: l.split('\t')[1]!, id: l.split(/\s/)[2]! }));
    const next = craft(bare, [...tracked.filter((e) => e.path !== 'templates/beta.yaml'), { mode: '100644', path: 'templates/beta.yaml', data: tpl('beta', 'theirs') }, { mode: '120000', path: 'notes/link', data: '/etc/passwd' }], mine);
    expect(await d.sync.sync()).toMatchObject({ last_error: null });
    expect(look(d.f.root, 'rev-parse', 'HEAD').trim()).toBe(next);
    expect(await readFile(join(d.f.root, 'templates', 'beta.yaml'), 'utf8')).toBe(tpl('beta', 'theirs'));
    await expect(readFile(join(d.f.root, 'notes', 'link'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
