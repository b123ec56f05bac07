/**
 * A shared library as a team uses it: desks on one bare repository and a
 * teammate in a plain `git clone`, pushing by hand (docs/history.md,
 * "Sharing a library"). Shared truth moves only by decisions: an undecided
 * conflict is never published, a teammate's file the desk does not load is
 * never deleted, a version that does not validate or is over the cap is
 * never taken, and a round cut short is rolled forward, never taken for an
 * edit made here. `git fsck` is clean after each.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SyncStatus } from '../src/schema/sync.js';
import { ALPHA, API, BETA } from './http-fixture.js';
import { type Desk, get, HOUR, openDesk, save, sync } from './sync-desks.js';

let dir: string;
let bare: string;
let desks: Desk[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-shared-'));
  bare = join(dir, 'team.git');
  execFileSync('git', ['init', '--bare', '-q', '-b', 'main', bare]);
});

afterEach(async () => {
  for (const d of desks) {
    await d.app.close();
    await d.fx.cleanup();
  }
  desks = [];
  await rm(dir, { recursive: true, force: true });
});

const desk = (): Promise<Desk> => openDesk(bare, desks);

async function restart(d: Desk): Promise<void> {
  await d.app.close();
  d.app = await d.fx.open({ sync: { remote: bare, intervalMs: HOUR } });
  await d.app.ready();
}

const run = (cwd: string, ...args: string[]): string => execFileSync('git', ['-C', cwd, '-c', 'user.name=Teammate', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();
const git = (d: Desk, ...args: string[]): string => run(d.fx.root!, ...args);

/** A teammate's plain clone of the team's repository. */
function teammate(): { dir: string; write(path: string, text: string | Buffer): void; push(message: string): void } {
  const tm = join(dir, `teammate-${Math.random().toString(36).slice(2)}`);
  execFileSync('git', ['clone', '-q', bare, tm]);
  return {
    dir: tm,
    write(path, text) {
      mkdirSync(dirname(join(tm, path)), { recursive: true });
      writeFileSync(join(tm, path), text);
    },
    push(message) {
      run(tm, 'pull', '-q', '--no-rebase');
      run(tm, 'add', '-A');
      run(tm, 'commit', '-q', '-m', message);
      run(tm, 'push', '-q', 'origin', 'HEAD:main');
    },
  };
}

const purpose = (p: string) => ALPHA.replace('purpose: one worker then a gate', `purpose: ${p}`);
const betaPurpose = (p: string) => BETA.replace('purpose: alpha with a review', `purpose: ${p}`);

function fsckClean(d: Desk): void {
  expect(() => git(d, 'fsck', '--no-dangling', '--no-progress')).not.toThrow();
}

describe('an undecided conflict is never published', () => {
  for (const first of ['A', 'B'] as const) {
    it(`desk ${first} pushes first: the other keeps its copy as diverged, publishes the first's, and nobody's text is replaced`, async () => {
      const [a, b] = [await desk(), await desk()];
      const [one, two] = first === 'A' ? [a, b] : [b, a];
      await sync(two);
      // every commit is pushed at once: the desk whose save reaches the remote first is the one whose sync runs first
      await save(one, 'beta', betaPurpose(`from ${first}`));
      await sync(one);
      await save(two, 'beta', betaPurpose('from the second desk'));
      const st = await sync(two);
      expect(st.diverged).toEqual(['beta']);
      expect(st.diverged_detail).toEqual([{ name: 'beta', kind: 'template', reason: 'conflict', problems: [] }]);
      // the second desk loads its own copy, and HEAD (what it publishes) holds the first desk's
      expect((await get(two, 'beta')).source).toContain('from the second desk');
      expect(git(two, 'show', 'HEAD:templates/beta.yaml')).toContain(`from ${first}`);
      expect(git(two, 'status', '--porcelain').split('\n').map((l) => l.trim())).toEqual(['M templates/.beta.shipped', 'M templates/beta.yaml']);
      // the first desk takes nothing: its operator's text stands
      await sync(one);
      expect((await get(one, 'beta')).source).toContain(`from ${first}`);
      expect((await get(one, 'beta')).state).toBe('edited');
      // both texts are in history on both desks
      for (const d of [a, b]) {
        await sync(d);
        const all = git(d, 'log', '--all', '--full-history', '-p', '--format=', '--', 'templates/beta.yaml');
        expect(all).toContain(`from ${first}`);
        expect(all).toContain('from the second desk');
      }
      // a restart takes the diverged copy for no change made here
      await restart(two);
      expect((await two.app.inject({ method: 'GET', url: `${API}/sync` })).json().diverged).toEqual(['beta']);
      expect(git(two, 'log', '-1', '--format=%s')).not.toMatch(/^found on disk/);
      // take theirs: the first desk's text loads here too, nothing to publish
      const etag = (await get(two, 'beta')).etag;
      const took = await two.app.inject({ method: 'POST', url: `${API}/sync/templates/beta/take`, headers: { 'if-match': etag } });
      expect(took.statusCode).toBe(200);
      expect(took.json().diverged).toEqual([]);
      const after = await get(two, 'beta');
      expect(after.source).toContain(`from ${first}`);
      expect(after.diverged).toBeUndefined();
      expect(git(two, 'status', '--porcelain')).toBe('');
      fsckClean(a);
      fsckClean(b);
    });
  }

  it('another round while a name is diverged keeps every other name syncing and follows the remote for that name', async () => {
    const [a, b] = [await desk(), await desk()];
    await sync(b);
    await save(a, 'beta', betaPurpose('A1'));
    await sync(a);
    await save(b, 'beta', betaPurpose('B1'));
    expect((await sync(b)).diverged).toEqual(['beta']);
    await save(a, 'beta', betaPurpose('A2'));
    await save(a, 'alpha', purpose('alpha from A'));
    await sync(a);
    const st = await sync(b);
    expect(st.diverged).toEqual(['beta']);
    expect((await get(b, 'alpha')).source).toContain('alpha from A');
    expect((await get(b, 'beta')).source).toContain('B1');
    expect(git(b, 'show', 'HEAD:templates/beta.yaml')).toContain('A2');
    // rebase and save is a decision too: published as an ordinary change, which A then takes
    await save(b, 'beta', betaPurpose('B and A agreed'));
    await sync(b);
    await sync(a);
    expect((await get(a, 'beta')).source).toContain('B and A agreed');
  });
});

describe("a teammate's files the desk does not load", () => {
  it('stay in HEAD on every desk, across restarts and pushes; git status is clean; the status lists them with why', async () => {
    const a = await desk();
    await save(a, 'alpha', purpose('first'));
    await sync(a);
    const tm = teammate();
    tm.write('README.md', '# our library\n');
    tm.write('templates/drafts/idea.yaml', 'not yet\n');
    tm.write('templates/notes.yml', 'notes\n');
    tm.write('templates/Bad_Name.yaml', 'x: 1\n');
    tm.push('teammate files');
    const st = await sync(a);
    expect(st.ignored).toEqual(
      expect.arrayContaining([
        { path: 'README.md', reason: 'not_library' },
        { path: 'templates/drafts/idea.yaml', reason: 'subfolder' },
        { path: 'templates/notes.yml', reason: 'not_yaml' },
        { path: 'templates/Bad_Name.yaml', reason: 'not_a_name' },
      ]),
    );
    expect(git(a, 'status', '--porcelain')).toBe('');
    await restart(a);
    expect(git(a, 'status', '--porcelain')).toBe('');
    await save(a, 'alpha', purpose('second'));
    await sync(a);
    const files = run(bare, 'ls-tree', '-r', '--name-only', 'main').split('\n');
    expect(files).toEqual(expect.arrayContaining(['README.md', 'templates/drafts/idea.yaml', 'templates/notes.yml', 'templates/Bad_Name.yaml']));
    // a second desk, merging (not fast-forwarding) with its own save, keeps them too
    const b = await desk();
    await save(b, 'beta', betaPurpose('b'));
    await sync(b);
    await restart(b);
    await sync(b);
    expect(run(bare, 'ls-tree', '-r', '--name-only', 'main').split('\n')).toEqual(expect.arrayContaining(['README.md', 'templates/drafts/idea.yaml']));
    expect(git(b, 'status', '--porcelain')).toBe('');
    // a teammate's change to one of them is taken into HEAD as the remote has it
    tm.write('README.md', '# our library, v2\n');
    tm.push('readme v2');
    await sync(a);
    expect(git(a, 'show', 'HEAD:README.md')).toBe('# our library, v2');
    fsckClean(a);
    fsckClean(b);
  });
});

describe('the validator runs before anything from the remote is taken', () => {
  it('a template pushed by hand that does not validate is not taken: the valid copy stays, the name reads diverged with why', async () => {
    const a = await desk();
    await save(a, 'alpha', purpose('valid here'));
    await sync(a);
    const tm = teammate();
    tm.write('templates/alpha.yaml', purpose('broken').replace('role: worker', 'role: nobody-has-this-role'));
    tm.push('broken alpha');
    const st = await sync(a);
    expect(st.last_error).toBeNull();
    expect(st.diverged).toEqual(['alpha']);
    const d = st.diverged_detail[0]!;
    expect(d).toMatchObject({ name: 'alpha', kind: 'template', reason: 'invalid' });
    expect(d.problems.length).toBeGreaterThan(0);
    const t = await get(a, 'alpha');
    expect(t.source).toContain('valid here');
    expect(t.valid).toBe(true);
    // the template's answer says why too
    expect(t.state).toBe('diverged');
    expect(t.diverged).toEqual({ reason: 'invalid', problems: d.problems });
    // taking it is refused with its problems; keeping publishes the valid copy
    const take = await a.app.inject({ method: 'POST', url: `${API}/sync/templates/alpha/take` });
    expect(take.statusCode).toBe(422);
    expect(take.json().code).toBe('invalid_template');
    const keep = await a.app.inject({ method: 'POST', url: `${API}/sync/templates/alpha/keep` });
    expect(keep.statusCode).toBe(200);
    await sync(a);
    expect(run(bare, 'show', 'main:templates/alpha.yaml')).toContain('valid here');
    fsckClean(a);
  });

  it('an oversized blob is never read: the name reads diverged too_large, and the local copy stays', async () => {
    const a = await desk();
    await save(a, 'alpha', purpose('small'));
    await sync(a);
    const tm = teammate();
    tm.write('templates/alpha.yaml', `${purpose('huge')}# ${'x'.repeat(200 * 1024)}\n`);
    tm.write('proposals/p-1.json', `{"pad":"${'y'.repeat(2 * 1024 * 1024)}"}`);
    tm.push('too large');
    const st = await sync(a);
    const big = `${purpose('huge')}# ${'x'.repeat(200 * 1024)}\n`;
    expect(st.diverged_detail).toEqual([{ name: 'alpha', kind: 'template', reason: 'too_large', problems: [], size: Buffer.byteLength(big) }]);
    expect((await get(a, 'alpha')).source).toContain('small');
    expect(await a.fx.read('proposals', 'p-1.json')).toBeNull();
  });

  it('a kept base whose content does not hash to its name is not taken', async () => {
    const a = await desk();
    await sync(a);
    const tm = teammate();
    const fake = `templates/.shipped-base/${'a'.repeat(64)}.yaml`;
    tm.write(fake, 'not what the name says\n');
    tm.push('bad base');
    const st = await sync(a);
    expect(st.ignored).toContainEqual({ path: fake, reason: 'hash_mismatch' });
    expect(await a.fx.read(...fake.split('/'))).toBeNull();
  });

  it('a copy of a shipped name that arrives with no marker reads edited_outside', async () => {
    const a = await desk();
    await sync(a);
    const tm = teammate();
    tm.write('templates/alpha.yaml', purpose('by hand'));
    tm.push('hand copy');
    await sync(a);
    expect(await get(a, 'alpha')).toMatchObject({ state: 'edited', edited_outside: true });
  });
});

describe('a round is all or nothing', () => {
  it('a round stopped midway is rolled forward at the next start: nothing it wrote is taken for an edit made here', async () => {
    const a = await desk();
    await sync(a);
    const tm = teammate();
    for (let i = 0; i < 300; i++) tm.write(`templates/t-${i}.yaml`, ALPHA.replace('name: alpha', `name: t-${i}`));
    tm.push('300 templates');
    // stop the service as soon as the round has written some names
    const round = a.app.inject({ method: 'POST', url: `${API}/sync` });
    const give = Date.now() + 60_000;
    for (;;) {
      const s = (await a.app.inject({ method: 'GET', url: `${API}/sync` })).json() as SyncStatus;
      if ((s.round?.done ?? 0) > 20 || Date.now() > give) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await a.app.close();
    await round.catch(() => {});
    // some, not all, were written; no commit holds them
    expect(git(a, 'ls-tree', '--name-only', 'HEAD', 'templates/').split('\n').filter((p) => p.startsWith('templates/t-'))).toEqual([]);
    // the team moves on meanwhile
    tm.write('templates/t-1.yaml', ALPHA.replace('name: alpha', 'name: t-1').replace('purpose: one worker then a gate', 'purpose: newer'));
    tm.push('t-1 newer');
    a.app = await a.fx.open({ sync: { remote: bare, intervalMs: HOUR } });
    await a.app.ready();
    expect(git(a, 'log', '--format=%s')).not.toMatch(/found on disk: t-/);
    const st = await sync(a);
    expect(st.diverged).toEqual([]);
    expect((await get(a, 't-1')).source).toContain('purpose: newer');
    expect((await get(a, 't-299')).state).toBe('custom');
    expect(git(a, 'status', '--porcelain')).toBe('');
    expect(run(bare, 'show', 'main:templates/t-1.yaml')).toContain('purpose: newer');
    fsckClean(a);
  });
});
