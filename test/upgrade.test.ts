/**
 * The upgrade assistant through HTTP: copies saved by this build, the shipped
 * templates and roles changed, the service opened again on the same root;
 * the plan's outcomes, the apply, its If-Match skip, one history commit and
 * one event for the whole upgrade.
 */
import { execFileSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type App, buildApp } from '../src/app.js';
import { formatMarker, sha256Hex } from '../src/library/disk/markers.js';
import { openLibrary } from '../src/library/library.js';
import type { Library } from '../src/library/types.js';
import type { DeskEvent } from '../src/schema/events.js';
import { API, type Fixture, fixture } from './http-fixture.js';
import { beforeRelease, COPY, T, UPSTREAM_NOTE, V2, WORKER_V1 } from './upgrade-fixture.js';
import { testSpawner } from './test-spawner.js';

let fx: Fixture;
let library: Library;
let app: App;
let events: DeskEvent[];

async function open(): Promise<void> {
  library = await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness });
  events = [];
  library.events.subscribe((e) => events.push(e));
  app = await buildApp({ library, web: false });
  await app.ready();
}
async function close(): Promise<void> {
  await app.close();
  await library.close();
}

const plan = async () => {
  const r = await app.inject({ url: `${API}/upgrade` });
  expect(r.statusCode).toBe(200);
  return r.json() as { templates: { name: string; state: string; outcome: string; etag: string; conflicts: number; problems: { code: string }[] }[]; roles: { name: string; state: string; outcome: string; etag: string; conflicts: number }[] };
};
const apply = (payload: object) => app.inject({ method: 'POST', url: `${API}/upgrade`, payload });
const git = (...args: string[]) =>
  execFileSync('git', args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', GIT_DIR: join(fx.root!, '.git'), GIT_WORK_TREE: fx.root!, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

beforeEach(async () => {
  fx = await fixture();
  await beforeRelease(fx);
  await open();
  // the start commits the removed base (`found on disk`) before the tests read HEAD
  await library.history.settle();
});

afterEach(async () => {
  await close();
  await fx.cleanup();
});

describe('GET /api/desk/upgrade', () => {
  test('every copy behind the shipped version, with its outcome; no copy, custom and up-to-date names never appear', async () => {
    const p = await plan();
    const by = Object.fromEntries(p.templates.map((t) => [t.name, t]));
    expect(p.templates.map((t) => t.name)).toEqual(['up-clean', 'up-conflict', 'up-invalid', 'up-nobase', 'up-reset']);
    expect(by['up-reset']).toMatchObject({ state: 'stale', outcome: 'reset', conflicts: 0 });
    expect(by['up-clean']).toMatchObject({ state: 'shipped_changed_since', outcome: 'clean', conflicts: 0 });
    expect(by['up-conflict']).toMatchObject({ state: 'shipped_changed_since', outcome: 'conflicts', conflicts: 1 });
    expect(by['up-invalid']!.outcome).toBe('invalid');
    expect(by['up-invalid']!.problems.map((x) => x.code)).toContain('yaml.duplicate_key');
    expect(by['up-nobase']).toMatchObject({ state: 'shipped_changed_since', outcome: 'no_kept_base' });
    const etag = (await app.inject({ url: `${API}/templates/up-clean` })).headers.etag;
    expect(by['up-clean']!.etag).toBe(etag);
    expect(p.roles).toEqual([
      { name: 'reviewer', state: 'stale', outcome: 'reset', etag: expect.any(String), conflicts: 0 },
      // an edited role carries its kept base's role.md: the page's diffs are drawn from it
      { name: 'worker', state: 'shipped_changed_since', outcome: 'clean', etag: expect.any(String), conflicts: 0, base: WORKER_V1 },
    ]);
  });

  test('what the list knows skips a copy only while its stats prove it: a marker moved by hand is planned from the disk', async () => {
    await close();
    // a clock ahead of the files' times: the list's facts count as proved at once (memos/entry-cache.ts, the racy rule)
    library = await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness, now: () => Date.now() + 60_000 });
    app = await buildApp({ library, web: false });
    expect((await app.inject({ url: `${API}/templates` })).statusCode).toBe(200);
    const names = async () => (await plan()).templates.map((t) => t.name);
    expect(await names()).toContain('up-reset');
    // the marker now names today's shipped version: an `edited` copy, not behind
    const marker = fx.at('templates', '.up-reset.shipped');
    await writeFile(marker, formatMarker({ shipped: sha256Hex(V2['up-reset']!) }));
    expect(await names()).not.toContain('up-reset');
    await writeFile(marker, formatMarker({ shipped: sha256Hex(T('up-reset')) }));
    expect(await names()).toContain('up-reset');
  });

  test('a role saved with no kept base reads no_kept_base', async () => {
    await close();
    await rm(fx.at('roles', '.shipped-base'), { recursive: true });
    await open();
    expect((await plan()).roles.find((r) => r.name === 'worker')).toMatchObject({ outcome: 'no_kept_base' });
  });
});

describe('POST /api/desk/upgrade', () => {
  test('{} upgrades every reset and clean copy: the rest skipped with their outcome; one commit, one event', async () => {
    const head = git('rev-parse', 'HEAD').trim();
    const r = await apply({});
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.applied).toEqual([
      { name: 'up-clean', kind: 'template', state: 'edited', etag: expect.any(String) },
      { name: 'up-reset', kind: 'template', state: 'shipped', etag: `"${sha256Hex(V2['up-reset']!)}"` },
      { name: 'reviewer', kind: 'role', state: 'shipped', etag: expect.any(String) },
      { name: 'worker', kind: 'role', state: 'edited', etag: expect.any(String) },
    ]);
    expect(body.skipped.map((s: { name: string; outcome: string }) => [s.name, s.outcome])).toEqual([
      ['up-conflict', 'conflicts'],
      ['up-invalid', 'invalid'],
      ['up-nobase', 'no_kept_base'],
    ]);
    // the copy is the merge: the operator's purpose and upstream's note
    const clean = await fx.read('templates', 'up-clean.yaml');
    expect(clean).toContain('purpose: my own purpose');
    expect(clean).toContain(UPSTREAM_NOTE);
    expect(await fx.read('templates', '.up-clean.shipped')).toMatch(new RegExp(`^${sha256Hex(V2['up-clean']!)}\n`));
    expect(await fx.read('templates', 'up-reset.yaml')).toBeNull();
    expect(await fx.read('roles', 'worker', 'role.md')).toBe('# Worker, mine\n\nDoes the work.\n\nKeeps notes.\n\nAsks when unsure, early.\n');
    // untouched
    expect(await fx.read('templates', 'up-conflict.yaml')).toBe(COPY['up-conflict']);

    await library.history.settle();
    expect(git('log', '--format=%s', `${head}..HEAD`).trim().split('\n')).toEqual(['upgrade 4 copies to the shipped templates']);
    const files = git('show', '--name-only', '--no-renames', '--format=', 'HEAD').trim().split('\n').sort();
    expect(files).toEqual(expect.arrayContaining(['templates/up-clean.yaml', 'templates/.up-clean.shipped', 'templates/up-reset.yaml', 'roles/worker/role.md', 'roles/reviewer/role.md']));
    // the kept bases the merges stand on are in the upgrade's commit, a role's as a template's: nothing left for `found on disk`
    expect(files.filter((f) => f.includes('/.shipped-base/'))).toHaveLength(2);
    expect(git('status', '--porcelain', '--', 'templates', 'roles').trim()).toBe('');
    const upgraded = events.filter((e) => e.type === 'library.upgraded');
    expect(upgraded).toHaveLength(1);
    expect(upgraded[0]!.data).toEqual({ applied: 4, skipped: 3, names: ['template:up-clean', 'template:up-reset', 'role:reviewer', 'role:worker'], who: '127.0.0.1' });
    expect(events.filter((e) => e.type === 'template.changed' || e.type === 'role.changed')).toEqual([]);

    // the plan is empty of what was upgraded
    expect((await plan()).templates.map((t) => t.name)).toEqual(['up-conflict', 'up-invalid', 'up-nobase']);
  });

  test('a list: only those, a stale if_match skips its copy and writes nothing of it', async () => {
    const p = await plan();
    const etag = (n: string) => p.templates.find((t) => t.name === n)!.etag;
    const r = await apply({
      templates: [
        { name: 'up-clean', if_match: '"0000000000000000000000000000000000000000000000000000000000000000"' },
        { name: 'up-reset', if_match: etag('up-reset') },
        { name: 'up-conflict' },
        { name: 'my-own' },
      ],
    });
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.applied.map((a: { name: string }) => a.name)).toEqual(['up-reset']);
    expect(body.skipped).toEqual([
      { name: 'my-own', kind: 'template', outcome: null, code: 'state_conflict', reason: expect.any(String) },
      { name: 'up-clean', kind: 'template', outcome: 'clean', code: 'precondition_failed', reason: expect.any(String) },
      { name: 'up-conflict', kind: 'template', outcome: 'conflicts', reason: expect.any(String) },
    ]);
    expect(await fx.read('templates', 'up-clean.yaml')).toBe(COPY['up-clean']);
    expect((await plan()).roles.map((x) => x.name)).toEqual(['reviewer', 'worker']);
    await library.history.settle();
    expect(git('log', '-1', '--format=%s').trim()).toBe('upgrade 1 copy to the shipped templates');
  });

  test('nothing applied: no commit and no event', async () => {
    const head = git('rev-parse', 'HEAD').trim();
    const r = await apply({ templates: [{ name: 'up-conflict' }] });
    expect(r.json().applied).toEqual([]);
    await library.history.settle();
    expect(git('rev-parse', 'HEAD').trim()).toBe(head);
    expect(events.filter((e) => e.type === 'library.upgraded')).toEqual([]);
  });

  test('unknown keys and bad names are 400', async () => {
    expect((await apply({ everything: true })).statusCode).toBe(400);
    expect((await apply({ templates: [{ name: '../x' }] })).statusCode).toBe(400);
  });
});
