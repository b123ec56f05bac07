import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LibraryLogger } from '../src/library/context.js';
import type { Library } from '../src/library/types.js';
import { fixture, tpl } from './library-helpers.js';

/** git on the test's root, with no user config */
const git = (root: string, ...args: string[]) =>
  execFileSync('git', args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', GIT_DIR: join(root, '.git'), GIT_WORK_TREE: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
const subjects = (root: string, ...path: string[]) => git(root, 'log', '--format=%s', '--', ...path).trim().split('\n');

function recordingLogger() {
  const lines: { level: string; obj: object; msg: string }[] = [];
  const logger: LibraryLogger = {
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => lines.push({ level: 'error', obj, msg }),
  };
  return { logger, lines };
}

let open: Library[] = [];
afterEach(async () => {
  for (const l of open) await l.close();
  open = [];
});
const keep = (l: Library) => {
  open.push(l);
  return l;
};

describe('one commit per write', () => {
  it('save, acknowledge, reset and delete each commit with their subject, author and Who trailer', async () => {
    const f = await fixture();
    let lib = keep(await f.open({ history: { author: 'Ann Lee <ann@example.org>' } }));
    await lib.saveTemplate('alpha', tpl('alpha', 'mine'), { who: '10.0.0.7' });
    await lib.saveTemplate('custom', tpl('custom', 'my own'), { who: '10.0.0.8' });
    await lib.deleteTemplate('custom', { who: '10.0.0.8' });
    await lib.history.settle();
    expect(subjects(f.root, 'templates')).toEqual(['delete custom', 'save custom', 'save alpha (edited)']);
    expect(git(f.root, 'log', '-1', '--format=%an <%ae>|%B', '--', 'templates/alpha.yaml')).toBe('Ann Lee <ann@example.org>|save alpha (edited)\n\nWho: 10.0.0.7\n\n');
    // the save's commit holds the copy, its marker and the kept base, and nothing else
    const files = git(f.root, 'show', '--name-only', '--format=', 'HEAD~2').trim().split('\n').sort();
    expect(files).toEqual(['templates/.alpha.shipped', expect.stringMatching(/^templates\/\.shipped-base\/[0-9a-f]{64}\.yaml$/), 'templates/alpha.yaml']);
    await lib.close();
    open = [];
    // a new shipped alpha: acknowledge, then reset
    await writeFile(join(f.harness, 'templates', 'alpha.yaml'), tpl('alpha', 'alpha v2'));
    lib = keep(await f.open());
    await lib.acknowledgeTemplate('alpha');
    await lib.resetTemplate('alpha');
    await lib.history.settle();
    expect(subjects(f.root, 'templates/alpha.yaml', 'templates/.alpha.shipped').slice(0, 3)).toEqual(['reset alpha', 'acknowledge alpha', 'save alpha (edited)']);
    expect(git(f.root, 'ls-files', 'templates')).not.toContain('alpha');
    expect(git(f.root, 'status', '--porcelain')).toBe('');
  });

  it('role save, reset and delete, and a restore names its commit', async () => {
    const f = await fixture();
    const lib = keep(await f.open());
    await lib.saveRole('worker', 'You work carefully.', { tools: ['workspace.read'] });
    await lib.resetRole('worker');
    await lib.saveRole('helper', 'You help.', null);
    await lib.deleteRole('helper');
    await lib.saveTemplate('alpha', tpl('alpha', 'one'));
    await lib.saveTemplate('alpha', tpl('alpha', 'two'), { restoredFrom: '1a2b3c4' });
    await lib.history.settle();
    expect(subjects(f.root).slice(0, 6)).toEqual(['restore alpha to 1a2b3c4', 'save alpha (edited)', 'delete role helper', 'save role helper', 'reset role worker', 'save role worker']);
    const [v] = await lib.history.log('roles/worker', { limit: 1 });
    expect(v?.message).toBe('reset role worker');
  });

  it('commits of one name land in write order, each with its own bytes', async () => {
    const f = await fixture();
    const lib = keep(await f.open());
    const texts = Array.from({ length: 12 }, (_, i) => tpl('alpha', `version ${i}`));
    // all queued at once: the writes of one name run one at a time, their commits after them
    await Promise.all(texts.map((t) => lib.saveTemplate('alpha', t)));
    await lib.history.settle();
    const log = await lib.history.log('templates/alpha.yaml', { limit: 50 });
    const shown = await Promise.all(log.map((v) => lib.history.show('templates/alpha.yaml', v.commit)));
    expect(shown.reverse()).toEqual(texts);
  });

  it('log pages with before, show answers null for an unknown commit or path, recent lists paths', async () => {
    const f = await fixture();
    const lib = keep(await f.open());
    for (let i = 0; i < 5; i++) await lib.saveTemplate('alpha', tpl('alpha', `v${i}`));
    await lib.history.settle();
    const first = await lib.history.log('templates/alpha.yaml', { limit: 2 });
    const next = await lib.history.log('templates/alpha.yaml', { limit: 2, before: first[1]!.commit });
    expect(next).toHaveLength(2);
    expect(await lib.history.show('templates/alpha.yaml', next[0]!.commit)).toBe(tpl('alpha', 'v2'));
    expect(await lib.history.show('templates/alpha.yaml', 'f'.repeat(40))).toBeNull();
    expect(await lib.history.show('templates/beta.yaml', next[0]!.commit)).toBeNull();
    expect(await lib.history.show('../etc/passwd', next[0]!.commit)).toBeNull();
    expect(await lib.history.log('templates/alpha.yaml', { limit: 2, before: 'not-a-commit' })).toEqual([]);
    const [top] = await lib.history.recent({ limit: 1 });
    expect(top?.paths).toEqual(['templates/.alpha.shipped', 'templates/alpha.yaml']);
  });
});

describe('found on disk', () => {
  it('commits hand edits made while stopped at start, and those made while running before the next write of the name', async () => {
    const f = await fixture();
    let lib = keep(await f.open());
    await lib.saveTemplate('custom', tpl('custom', 'v1'));
    await lib.close();
    open = [];
    await writeFile(join(f.root, 'templates', 'custom.yaml'), tpl('custom', 'by hand, stopped'));
    lib = keep(await f.open());
    await lib.history.settle();
    expect(subjects(f.root, 'templates/custom.yaml')[0]).toBe('found on disk: custom');
    expect(git(f.root, 'show', 'HEAD:templates/custom.yaml')).toBe(tpl('custom', 'by hand, stopped'));
    // while running: nothing commits it until the name is written again
    await writeFile(join(f.root, 'templates', 'custom.yaml'), tpl('custom', 'by hand, running'));
    await lib.saveTemplate('beta', tpl('beta', 'other name'));
    await lib.history.settle();
    expect(subjects(f.root, 'templates/custom.yaml')[0]).toBe('found on disk: custom');
    await lib.saveTemplate('custom', tpl('custom', 'v2'));
    await lib.history.settle();
    expect(subjects(f.root, 'templates/custom.yaml').slice(0, 2)).toEqual(['save custom', 'found on disk: custom']);
    expect(git(f.root, 'show', 'HEAD~1:templates/custom.yaml')).toBe(tpl('custom', 'by hand, running'));
    // edited_outside is about markers, not git: a custom template has none
    expect((await lib.getTemplate('custom'))?.edited_outside).toBe(false);
  });
});

describe('the repository', () => {
  it('an existing repository is used as it is: its commits stay, its .gitignore gains the block', async () => {
    const f = await fixture();
    await mkdir(join(f.root, 'templates'), { recursive: true });
    await writeFile(join(f.root, 'templates', 'custom.yaml'), tpl('custom', 'before the service'));
    await writeFile(join(f.root, '.gitignore'), 'notes/\n');
    execFileSync('git', ['init', '-q', '-b', 'trunk', f.root]);
    git(f.root, 'add', '-A');
    git(f.root, '-c', 'user.name=me', '-c', 'user.email=me@x', 'commit', '-qm', 'my own start');
    const lib = keep(await f.open());
    await lib.saveTemplate('custom', tpl('custom', 'through the service'));
    await lib.history.settle();
    expect(subjects(f.root)).toEqual(['save custom', 'found on disk: library files', 'my own start']);
    expect(git(f.root, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/trunk');
    const ignore = await readFile(join(f.root, '.gitignore'), 'utf8');
    expect(ignore.startsWith('notes/\n')).toBe(true);
    expect(ignore).toContain('*.intent');
  });

  it('removes lock files a killed git left in .git, holding the root lock', async () => {
    const f = await fixture();
    let lib = keep(await f.open());
    await lib.saveTemplate('alpha', tpl('alpha', 'one'));
    await lib.close();
    open = [];
    await writeFile(join(f.root, '.git', 'index.lock'), '');
    await writeFile(join(f.root, '.git', 'refs', 'heads', 'main.lock'), '');
    const { logger, lines } = recordingLogger();
    lib = keep(await f.open({ logger }));
    await lib.saveTemplate('alpha', tpl('alpha', 'two'));
    await lib.history.settle();
    expect(subjects(f.root, 'templates/alpha.yaml')[0]).toBe('save alpha (edited)');
    expect(lines.find((l) => /lock files/.test(l.msg))?.obj).toEqual({ locks: ['index.lock', 'refs/heads/main.lock'] });
    expect(() => git(f.root, 'fsck', '--no-progress', '--no-dangling')).not.toThrow();
  });

  it('a failing commit never fails the save: logged, and retried until it lands', async () => {
    const f = await fixture();
    let failing = 2;
    let armed = false;
    const { logger, lines } = recordingLogger();
    const faults = (step: string) => {
      if (armed && step === 'update-ref' && failing > 0) {
        failing--;
        throw new Error('simulated git failure');
      }
    };
    const lib = keep(await f.open({ logger, history: { faults } }));
    await lib.history.settle();
    armed = true;
    const d = await lib.saveTemplate('alpha', tpl('alpha', 'stands'));
    expect(d.state).toBe('edited');
    await lib.history.settle();
    expect(git(f.root, 'log', '--format=%s', '--', 'templates/alpha.yaml')).toBe('');
    expect(lines.filter((l) => l.level === 'error' && /commit failed/.test(l.msg)).length).toBeGreaterThan(0);
    // retried after 0.5 s, then 1 s
    const until = Date.now() + 10_000;
    while (subjects(f.root, 'templates/alpha.yaml')[0] !== 'save alpha (edited)' && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(subjects(f.root, 'templates/alpha.yaml')[0]).toBe('save alpha (edited)');
    expect(failing).toBe(0);
  });

  it('without git the library opens with history off, says so once, and saves as ever', async () => {
    const f = await fixture();
    const { logger, lines } = recordingLogger();
    const lib = keep(await f.open({ logger, history: { env: { PATH: join(f.base, 'no-git-here') } } }));
    expect(lib.history.enabled).toBe(false);
    expect(lib.history.disabled).toMatch(/git was not found/);
    expect(lines.filter((l) => /git was not found/.test(l.msg))).toHaveLength(1);
    await lib.saveTemplate('alpha', tpl('alpha', 'no history'));
    expect(await lib.history.log('templates/alpha.yaml', { limit: 5 })).toEqual([]);
    expect(lines.filter((l) => /git/.test(l.msg))).toHaveLength(1);
  });
});

