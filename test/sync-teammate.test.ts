/**
 * Nothing of a teammate's is deleted unless a person decides (docs/history.md,
 * "Sharing a library"): a file over its cap pushed with plain git stays in
 * HEAD and on the remote, on the fast-forward and the merge path and across a
 * restart, and reads `diverged` `too_large`; the remote's paths the desk does
 * not load stay listed under `ignored` round after round; a teammate's new
 * template that does not validate is readable and settled by a person.
 * `git fsck` is clean after each.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SyncStatus } from '../src/schema/sync.js';
import { ALPHA, API } from './http-fixture.js';
import { type Desk, fsckClean, get, gitIn, gitOf, openDesk, restart, save, sync, teammate, teamPerTest } from './sync-desks.js';

const team = teamPerTest('desk-teammate-');

const desk = (): Promise<Desk> => openDesk(team.bare, team.desks);
const purpose = (p: string) => ALPHA.replace('purpose: one worker then a gate', `purpose: ${p}`);
const custom = (name: string, p: string) => purpose(p).replace('name: alpha', `name: ${name}`);
const status = async (d: Desk): Promise<SyncStatus> => (await d.app.inject({ method: 'GET', url: `${API}/sync` })).json();

/** 200 KB: over the template cap (128 KiB) and the role file cap's reach is tested with 1.1 MiB */
const BIG_TEMPLATE = `${custom('big-one', 'huge')}# ${'x'.repeat(200 * 1024)}\n`;
const BIG_ROLE = `# Big\n\n${'y'.repeat(1100 * 1024)}\n`;

/** The paths the remote's main holds. */
const onRemote = () => gitIn(team.bare, 'ls-tree', '-r', '--name-only', 'main').split('\n');

describe("a teammate's file over the cap", () => {
  for (const path of ['fast-forward', 'merge'] as const) {
    it(`a template: stays in HEAD and on the remote (${path}), reads diverged too_large, and a restart commits no deletion`, async () => {
      const a = await desk();
      await save(a, 'alpha', purpose('first'));
      await sync(a);
      const tm = teammate(team.dir, team.bare);
      tm.write('templates/big-one.yaml', BIG_TEMPLATE);
      tm.push('a big template');
      if (path === 'merge') await save(a, 'alpha', purpose('second, not pushed yet'));
      const st = await sync(a);
      expect(st.last_error).toBeNull();
      expect(st.diverged_detail).toEqual([{ name: 'big-one', kind: 'template', reason: 'too_large', problems: [], size: Buffer.byteLength(BIG_TEMPLATE) }]);
      expect(gitOf(a, 'cat-file', '-s', 'HEAD:templates/big-one.yaml')).toBe(String(Buffer.byteLength(BIG_TEMPLATE)));
      expect(gitOf(a, 'status', '--porcelain')).toBe('');
      // what the desk reads of it: no text, its size
      const r = await a.app.inject({ method: 'GET', url: `${API}/sync/templates/big-one` });
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json()).toMatchObject({ reason: 'too_large', remote_source: null, remote_size: Buffer.byteLength(BIG_TEMPLATE) });
      await restart(a, team.bare);
      expect(gitOf(a, 'log', '--format=%s')).not.toMatch(/found on disk: (big-one|role big_role)/);
      await save(a, 'alpha', purpose('third'));
      const again = await sync(a);
      expect(again.diverged).toEqual(['big-one']);
      expect(onRemote()).toContain('templates/big-one.yaml');
      expect(gitIn(team.bare, 'cat-file', '-s', 'main:templates/big-one.yaml')).toBe(String(Buffer.byteLength(BIG_TEMPLATE)));
      expect(gitOf(a, 'status', '--porcelain')).toBe('');
      fsckClean(a);
    });

    it(`a role: stays in HEAD and on the remote (${path}), reads diverged too_large, and a restart commits no deletion`, async () => {
      const a = await desk();
      await save(a, 'alpha', purpose('first'));
      await sync(a);
      const tm = teammate(team.dir, team.bare);
      tm.write('roles/big_role/role.md', BIG_ROLE);
      tm.push('a big role');
      if (path === 'merge') await save(a, 'alpha', purpose('second, not pushed yet'));
      const st = await sync(a);
      expect(st.last_error).toBeNull();
      expect(st.diverged_detail).toEqual([{ name: 'big_role', kind: 'role', reason: 'too_large', problems: [], size: Buffer.byteLength(BIG_ROLE) }]);
      expect(gitOf(a, 'status', '--porcelain')).toBe('');
      await restart(a, team.bare);
      expect(gitOf(a, 'log', '--format=%s')).not.toMatch(/found on disk: (big-one|role big_role)/);
      await save(a, 'alpha', purpose('third'));
      expect((await sync(a)).diverged_roles).toEqual(['big_role']);
      expect(onRemote()).toContain('roles/big_role/role.md');
      expect(gitOf(a, 'status', '--porcelain')).toBe('');
      fsckClean(a);
    });
  }

  it('a start that lost the list of diverged names (a kill right after the fast-forward) still commits no deletion of it', async () => {
    const a = await desk();
    await sync(a);
    const tm = teammate(team.dir, team.bare);
    tm.write('templates/big-one.yaml', BIG_TEMPLATE);
    tm.push('a big template');
    await sync(a);
    rmSync(join(a.fx.root!, '.git', 'desk-sync.json'));
    await restart(a, team.bare);
    await save(a, 'alpha', purpose('after'));
    await sync(a);
    expect(gitOf(a, 'log', '--format=%s')).not.toMatch(/found on disk: big-one/);
    expect(onRemote()).toContain('templates/big-one.yaml');
    fsckClean(a);
  });
});

describe('a file over the cap made small again', () => {
  it('is taken at the next round like any new template: the name is no longer diverged', async () => {
    const a = await desk();
    await sync(a);
    const tm = teammate(team.dir, team.bare);
    tm.write('templates/big-one.yaml', BIG_TEMPLATE);
    tm.push('a big template');
    expect((await sync(a)).diverged).toEqual(['big-one']);
    tm.write('templates/big-one.yaml', custom('big-one', 'small now'));
    tm.push('smaller');
    expect((await sync(a)).diverged).toEqual([]);
    expect((await get(a, 'big-one')).source).toBe(custom('big-one', 'small now'));
    expect(gitOf(a, 'status', '--porcelain')).toBe('');
    fsckClean(a);
  });
});

describe('the paths a desk does not load', () => {
  it("a teammate's README stays listed under ignored after three quiet rounds, and across a restart", async () => {
    const a = await desk();
    await sync(a);
    const tm = teammate(team.dir, team.bare);
    tm.write('README.md', '# our library\n');
    tm.push('readme');
    expect((await sync(a)).ignored).toEqual([{ path: 'README.md', reason: 'not_library' }]);
    for (let i = 0; i < 3; i++) expect((await sync(a)).ignored).toEqual([{ path: 'README.md', reason: 'not_library' }]);
    await restart(a, team.bare);
    expect((await sync(a)).ignored).toEqual([{ path: 'README.md', reason: 'not_library' }]);
    // gone from the remote: gone from the list
    tm.remove('README.md');
    tm.push('no readme');
    expect((await sync(a)).ignored).toEqual([]);
    fsckClean(a);
  });
});

describe("a teammate's new template that does not validate", () => {
  const broken = custom('hand-made', 'by hand').replace('role: worker', 'role: nobody-has-this-role');

  async function arrive(): Promise<Desk> {
    const a = await desk();
    await sync(a);
    const tm = teammate(team.dir, team.bare);
    tm.write('templates/hand-made.yaml', broken);
    tm.push('a template by hand');
    const st = await sync(a);
    expect(st.diverged_detail).toMatchObject([{ name: 'hand-made', kind: 'template', reason: 'invalid' }]);
    return a;
  }

  it('is readable through the sync route: its remote text and problems; the template route stays 404 and points there', async () => {
    const a = await arrive();
    const r = await a.app.inject({ method: 'GET', url: `${API}/sync/templates/hand-made` });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({ name: 'hand-made', reason: 'invalid', remote_source: broken });
    expect(r.json().problems.length).toBeGreaterThan(0);
    // the page opens that text in the editor, with the card the editor shows for it
    const card = await a.app.inject({ method: 'POST', url: `${API}/templates/propose`, payload: { name: 'hand-made', source: broken } });
    expect(card.statusCode).toBe(200);
    expect(card.json().valid).toBe(false);
    const t = await a.app.inject({ method: 'GET', url: `${API}/templates/hand-made` });
    expect(t.statusCode).toBe(404);
    expect(t.json().detail).toContain('/sync/templates/hand-made');
    fsckClean(a);
  });

  it('a save of a fixed text settles it and publishes the fix', async () => {
    const a = await arrive();
    const fixed = custom('hand-made', 'fixed here');
    await save(a, 'hand-made', fixed);
    const st = await sync(a);
    expect(st.diverged).toEqual([]);
    expect(gitIn(team.bare, 'show', 'main:templates/hand-made.yaml')).toBe(fixed.trimEnd());
    expect(gitOf(a, 'status', '--porcelain')).toBe('');
    fsckClean(a);
  });

  it("keep, with no copy here, publishes its removal as a person's decision", async () => {
    const a = await arrive();
    const take = await a.app.inject({ method: 'POST', url: `${API}/sync/templates/hand-made/take` });
    expect(take.statusCode).toBe(422);
    const keep = await a.app.inject({ method: 'POST', url: `${API}/sync/templates/hand-made/keep` });
    expect(keep.statusCode, keep.body).toBe(200);
    expect(keep.json().diverged).toEqual([]);
    await sync(a);
    expect(onRemote()).not.toContain('templates/hand-made.yaml');
    expect(gitOf(a, 'log', '-1', '--format=%s%n%(trailers:key=Who,valueonly)', '--', 'templates/hand-made.yaml')).toMatch(/^delete hand-made \(teammate's version refused\)\n\S+/);
    expect(gitOf(a, 'status', '--porcelain')).toBe('');
    expect((await status(a)).diverged).toEqual([]);
    fsckClean(a);
  });

  it('keep of an over-cap file this desk never had removes it the same way', async () => {
    const a = await desk();
    await sync(a);
    const tm = teammate(team.dir, team.bare);
    tm.write('templates/big-one.yaml', BIG_TEMPLATE);
    tm.push('a big template');
    await sync(a);
    const keep = await a.app.inject({ method: 'POST', url: `${API}/sync/templates/big-one/keep` });
    expect(keep.statusCode, keep.body).toBe(200);
    await sync(a);
    expect(onRemote()).not.toContain('templates/big-one.yaml');
    expect(gitOf(a, 'status', '--porcelain')).toBe('');
    expect((await get(a, 'alpha')).state).toBeDefined();
    fsckClean(a);
  });
});
