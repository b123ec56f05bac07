import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Library } from '../src/library/types.js';
import { fixture, tpl } from './library-helpers.js';

const git = (root: string, ...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', env: { ...process.env, GIT_DIR: join(root, '.git') } });

let open: Library[] = [];
afterEach(async () => {
  for (const l of open) await l.close();
  open = [];
});

describe('the library root is a git repository', () => {
  it('is made on first start, with a .gitignore and a first commit', async () => {
    const f = await fixture();
    const lib = await f.open();
    open.push(lib);
    expect(lib.history.enabled).toBe(true);
    await lib.history.settle();
    const ignore = await readFile(join(f.root, '.gitignore'), 'utf8');
    expect(ignore).toContain('.tmp-*');
    expect(ignore).toContain('*.intent');
    expect(ignore).toContain('/.desk-library.lock');
    expect(git(f.root, 'log', '--format=%s')).toBe('found on disk: the library at its first start\n');
    expect(git(f.root, 'ls-files')).toBe('.gitignore\n');
  });

  it('commits a save with its message, author and Who trailer', async () => {
    const f = await fixture();
    const lib = await f.open();
    open.push(lib);
    await lib.saveTemplate('alpha', tpl('alpha', 'mine'), { who: '10.0.0.7' });
    await lib.history.settle();
    const [head] = await lib.history.log('templates/alpha.yaml', { limit: 5 });
    expect(head).toMatchObject({ message: 'save alpha (edited)', author: 'desk <desk@localhost>', who: '10.0.0.7' });
    expect(await lib.history.show('templates/alpha.yaml', head!.commit)).toBe(tpl('alpha', 'mine'));
    expect(git(f.root, 'status', '--porcelain')).toBe('');
  });
});

describe('DESK_AUTHOR', () => {
  it('defaults to desk <desk@HOST> naming this machine, takes Name <email>, and refuses anything else', async () => {
    const { loadConfig, ConfigError, defaultAuthor } = await import('../src/config.js');
    const { hostname } = await import('node:os');
    expect(loadConfig({}, '/tmp').author).toBe(defaultAuthor(hostname()));
    expect(defaultAuthor('desk-a.example')).toBe('desk <desk@desk-a.example>');
    expect(defaultAuthor('desk-b.example')).not.toBe(defaultAuthor('desk-a.example'));
    expect(defaultAuthor('')).toBe('desk <desk@localhost>');
    expect(loadConfig({ DESK_AUTHOR: ' Ann Lee <ann@example.org> ' }, '/tmp').author).toBe('Ann Lee <ann@example.org>');
    for (const bad of ['ann', '<ann@x>', 'ann <a b>', 'ann <x', 'a\n<x@y>']) expect(() => loadConfig({ DESK_AUTHOR: bad }, '/tmp'), bad).toThrow(ConfigError);
  });
});

describe('stale git locks', () => {
  it('are left alone when the root lock is not ours', async () => {
    const { recoverLocks } = await import('../src/library/history/repo.js');
    const { mkdtemp, writeFile: write, access } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const gitDir = await mkdtemp(join(tmpdir(), 'desk-git-locks-'));
    await write(join(gitDir, 'index.lock'), '');
    await expect(recoverLocks(gitDir, async () => false)).rejects.toThrow(/not ours/);
    await expect(access(join(gitDir, 'index.lock'))).resolves.toBeUndefined();
    expect(await recoverLocks(gitDir, async () => true)).toEqual(['index.lock']);
  });
});
