/**
 * The bounds on proposals (docs/api.md, Proposals): decided records past the
 * newest DESK_DECIDED_KEEP leave `proposals/` (committed as removed, so
 * history keeps them) by a rule every desk applies alike, and each client
 * may create DESK_PROPOSALS_PER_HOUR an hour.
 */
import { execFileSync } from 'node:child_process';
import { copyFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { createRate } from '../src/library/records/rate-limit.js';
import { openProposalStore, type ProposalStore, type ProposalStoreOptions } from '../src/library/records/proposal.js';
import type { Library } from '../src/library/types.js';
import { API, fixture as httpFixture } from './http-fixture.js';
import { type Fixture, fixture, tpl } from './library-helpers.js';

const GAMMA = tpl('gamma', 'gamma, proposed');
const git = (root: string, ...args: string[]) =>
  execFileSync('git', args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', GIT_DIR: join(root, '.git'), GIT_WORK_TREE: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
const onDisk = async (root: string) => (await readdir(join(root, 'proposals'))).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
const T0 = Date.parse('2026-12-01T12:00:00Z');

describe('decided proposals past the kept count', () => {
  let fx: Fixture;
  let library: Library;
  let t: number;
  const open = (extra: Partial<ProposalStoreOptions> = {}) => openProposalStore({ library, decidedKeep: 5, now: () => t, ...extra });
  beforeEach(async () => {
    fx = await fixture();
    library = await fx.open();
    t = T0;
  });
  afterEach(async () => {
    await library.close();
    await rm(fx.base, { recursive: true, force: true });
  });

  /** 20 proposals created a second apart (ids in creation order), and 3 more left pending. */
  async function propose(store: ProposalStore) {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      t += 1000;
      ids.push((await store.create({ name: 'gamma', purpose: `p${i}`, source: GAMMA })).id);
    }
    const pending: string[] = [];
    for (let i = 0; i < 3; i++) {
      t += 1000;
      pending.push((await store.create({ name: 'gamma', purpose: `left ${i}`, source: GAMMA })).id);
    }
    return { ids, pending };
  }

  /**
   * Decided newest-created first, four to a second: the last second's four
   * are ids 0–3, and of the four before it (4–7) the greatest id, 7, is the
   * fifth — the decision time first, then the id.
   */
  async function decideAll(store: ProposalStore, ids: string[]) {
    for (let i = 19; i >= 0; i--) {
      if (i % 4 === 3) t += 1000;
      await store.dismiss(ids[i]!, null);
    }
    return [0, 1, 2, 3, 7].map((i) => ids[i]!);
  }

  test('with keep 5, dismissing 20 leaves the newest 5 by the rule, and every pending one', async () => {
    const store = open();
    const { ids, pending } = await propose(store);
    const kept = await decideAll(store, ids);
    expect(await onDisk(fx.root)).toEqual([...kept, ...pending].sort());
    expect((await store.list('decided')).map((p) => p.id).sort()).toEqual([...kept].sort());
    expect((await store.list('pending')).map((p) => p.id).sort()).toEqual([...pending].sort());
    expect(await store.keptDecided()).toEqual({ count: 5, limit: 5 });
    expect(await store.pending()).toBe(3);
    // a removed one is gone from the store, not only from the folder
    expect(await store.get(ids[19]!)).toBeNull();
    store.close();
  });

  test('each removal is committed; the records stay in history', async () => {
    const store = open();
    const { ids, pending } = await propose(store);
    const kept = await decideAll(store, ids);
    await library.history.settle();
    const subjects = git(fx.root, 'log', '--format=%s').trim().split('\n');
    // the 6th decision on is one past the count: each is followed by the removal of one
    expect(subjects.filter((s) => s === 'proposals: 1 decided record past the newest 5 removed')).toHaveLength(15);
    expect(subjects[0]).toBe('proposals: 1 decided record past the newest 5 removed');
    const tracked = git(fx.root, 'ls-tree', '--name-only', 'HEAD', 'proposals/').trim().split('\n');
    expect(tracked.sort()).toEqual([...kept, ...pending].map((id) => `proposals/${id}.json`).sort());
    // a removed record: its decision is in history, and its removal after it
    const gone = ids[19]!;
    const log = git(fx.root, 'log', '--format=%s', '--', `proposals/${gone}.json`).trim().split('\n');
    expect(log).toEqual(['proposals: 1 decided record past the newest 5 removed', `proposal ${gone} dismissed`, `proposal ${gone} for gamma`]);
    expect(git(fx.root, 'show', `HEAD~1:proposals/${kept[0]}.json`)).toContain('"dismissed"');
    store.close();
  });

  test('a start applies the rule to what is on disk, in one commit', async () => {
    const first = open({ decidedKeep: 100 });
    const { ids, pending } = await propose(first);
    const kept = await decideAll(first, ids);
    first.close();
    expect(await onDisk(fx.root)).toHaveLength(23);
    await library.history.settle();
    await library.close();
    library = await fx.open();
    const again = open();
    await again.ready();
    expect(await onDisk(fx.root)).toEqual([...kept, ...pending].sort());
    expect(await again.keptDecided()).toEqual({ count: 5, limit: 5 });
    await library.history.settle();
    expect(git(fx.root, 'log', '-1', '--format=%s').trim()).toBe('proposals: 15 decided records past the newest 5 removed');
    expect(git(fx.root, 'ls-tree', '--name-only', 'HEAD', 'proposals/').trim().split('\n')).toHaveLength(8);
    again.close();
  });

  test('two desks holding the same records remove the same ones, whatever their clocks', async () => {
    const store = open({ decidedKeep: 100 });
    const { ids } = await propose(store);
    const kept = await decideAll(store, ids);
    store.close();
    // a teammate's root: the same records, copied in another order, plus one pending proposal of its own
    const other = await fixture();
    try {
      const teamLib = await other.open();
      const teamStore = openProposalStore({ library: teamLib, decidedKeep: 100, now: () => T0 - 86_400_000 });
      const own = (await teamStore.create({ name: 'gamma', purpose: 'the teammate waits', source: GAMMA })).id;
      teamStore.close();
      for (const id of [...ids].reverse()) await copyFile(join(fx.root, 'proposals', `${id}.json`), join(other.root, 'proposals', `${id}.json`));
      await teamLib.close();

      await library.close();
      library = await fx.open();
      const here = open({ now: () => T0 + 86_400_000 });
      await here.ready();
      const there = await other.open();
      const thereStore = openProposalStore({ library: there, decidedKeep: 5, now: () => T0 - 86_400_000 });
      await thereStore.ready();
      const decidedHere = (await here.list('decided')).map((p) => p.id).sort();
      const decidedThere = (await thereStore.list('decided')).map((p) => p.id).sort();
      expect(decidedHere).toEqual([...kept].sort());
      expect(decidedThere).toEqual(decidedHere);
      // the teammate's pending proposal is never the rule's
      expect((await thereStore.list('pending')).map((p) => p.id)).toContain(own);
      here.close();
      thereStore.close();
      await there.close();
    } finally {
      await rm(other.base, { recursive: true, force: true });
    }
  });
});

describe('the HTTP answers', () => {
  let h: Awaited<ReturnType<typeof httpFixture>>;
  beforeEach(async () => {
    h = await httpFixture();
  });
  afterEach(async () => {
    await h.cleanup();
  });
  const body = (i: number) => ({ name: 'gamma', purpose: `proposal ${i}`, source: GAMMA });

  test('the list says how many decided proposals are kept, and the bound', async () => {
    const app = await h.open({ proposals: { decidedKeep: 2 } });
    try {
      for (let i = 0; i < 4; i++) {
        const c = await app.inject({ method: 'POST', url: `${API}/proposals`, payload: body(i) });
        expect(c.statusCode).toBe(201);
        if (i < 3) expect((await app.inject({ method: 'POST', url: `${API}/proposals/${c.json().id}/dismiss`, payload: {} })).statusCode).toBe(200);
      }
      for (const status of ['pending', 'decided', 'all']) {
        const r = await app.inject({ method: 'GET', url: `${API}/proposals?status=${status}` });
        expect(r.json()).toMatchObject({ pending: 1, kept_decided: { count: 2, limit: 2 } });
      }
      expect((await app.inject({ method: 'GET', url: `${API}/proposals?status=decided` })).json().proposals).toHaveLength(2);
    } finally {
      await app.close();
    }
  });

  test('the 121st create in an hour is 429 with Retry-After; another client is not limited; an hour on it is allowed again', async () => {
    let t = T0;
    const app = await h.open({ proposals: { now: () => t } });
    try {
      const create = (i: number, remoteAddress = '127.0.0.1') => app.inject({ method: 'POST', url: `${API}/proposals`, payload: body(i), remoteAddress });
      for (let i = 0; i < 120; i++) expect((await create(i)).statusCode, `create ${i}`).toBe(201);
      const refused = await create(120);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.json().code).toBe('too_many_requests');
      // the allowance refills one create each 3600/120 s
      expect(refused.headers['retry-after']).toBe('30');
      expect((await app.inject({ method: 'GET', url: `${API}/proposals` })).json().pending).toBe(120);
      expect((await create(121, '10.0.0.2')).statusCode).toBe(201);
      t += 29_000;
      const still = await create(122);
      expect(still.statusCode).toBe(429);
      expect(still.headers['retry-after']).toBe('1');
      t += 3_600_000;
      expect((await create(123)).statusCode).toBe(201);
    } finally {
      await app.close();
    }
  });

  test('DESK_PROPOSALS_PER_HOUR 0 sets no limit', async () => {
    const app = await h.open({ proposals: { perHour: 0, now: () => T0 } });
    try {
      // with a limit, the 121st would be refused: every create asked counts, kept or not
      for (let i = 0; i < 130; i++) {
        const r = await app.inject({ method: 'POST', url: `${API}/proposals`, payload: { ...body(i), purpose: '' } });
        expect(r.statusCode).toBe(422);
      }
    } finally {
      await app.close();
    }
  });
});

describe('the rate limit', () => {
  test('a refused create takes nothing; every create asked counts', () => {
    let t = T0;
    const rate = createRate({ perHour: 2, now: () => t });
    expect([rate.take('a'), rate.take('a')]).toEqual([0, 0]);
    expect(rate.take('a')).toBe(1800);
    expect(rate.take('a')).toBe(1800);
    t += 1_800_000;
    expect([rate.take('a'), rate.take('a')]).toEqual([0, 1800]);
  });

  test('idle clients are forgotten, and at most maxClients are remembered', () => {
    let t = T0;
    const rate = createRate({ perHour: 60, now: () => t, maxClients: 3 });
    for (const c of ['a', 'b', 'c']) rate.take(c);
    expect(rate.size).toBe(3);
    // a fourth pushes out the one that created least recently
    rate.take('d');
    expect(rate.size).toBe(3);
    // a minute on, each has its one create back: a full bucket is the same as none
    t += 60_000;
    rate.take('e');
    expect(rate.size).toBe(1);
  });
});

describe('DESK_DECIDED_KEEP and DESK_PROPOSALS_PER_HOUR', () => {
  test('default to 1000 and 120; a whole number is taken', () => {
    expect(loadConfig({}, '/w')).toMatchObject({ decidedKeep: 1000, proposalsPerHour: 120 });
    expect(loadConfig({ DESK_DECIDED_KEEP: '5', DESK_PROPOSALS_PER_HOUR: '0' }, '/w')).toMatchObject({ decidedKeep: 5, proposalsPerHour: 0 });
  });

  test.each(['0', '-1', '1.5', 'many', '1000001', '1e3'])('refuses DESK_DECIDED_KEEP=%s', (v) => {
    expect(() => loadConfig({ DESK_DECIDED_KEEP: v }, '/w')).toThrow(ConfigError);
  });

  test.each(['-1', '2.5', 'lots', '1000001', '0x10'])('refuses DESK_PROPOSALS_PER_HOUR=%s', (v) => {
    expect(() => loadConfig({ DESK_PROPOSALS_PER_HOUR: v }, '/w')).toThrow(ConfigError);
  });

  test('DESK_LAUNCHES_PER_HOUR defaults to 120, takes 0 for none, refuses what is not a whole number', () => {
    expect(loadConfig({}, '/w')).toMatchObject({ launchesPerHour: 120 });
    expect(loadConfig({ DESK_LAUNCHES_PER_HOUR: '0' }, '/w')).toMatchObject({ launchesPerHour: 0 });
    for (const v of ['-1', '2.5', 'lots', '1000001']) expect(() => loadConfig({ DESK_LAUNCHES_PER_HOUR: v }, '/w'), v).toThrow(ConfigError);
  });
});
