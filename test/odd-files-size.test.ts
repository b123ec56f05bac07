/**
 * Files over the size cap placed by hand (docs/security.md, Odd files): the
 * size is taken from the stat before a byte is read; a template over
 * 128 KiB is listed with `limit.size` and never read, a role file over its
 * cap likewise, an intent or marker over the cap is skipped. One such file
 * hides nothing else. The 600 MB files are sparse: they cost no disk.
 */
import { mkdir, truncate, writeFile } from 'node:fs/promises';
import { afterEach, expect, test } from 'vitest';
import { openLibrary } from '../src/library/library.js';
import { ALPHA, API, type Fixture, fixture } from './http-fixture.js';
import { keepLog, warnsAbout } from './odd-files-helpers.js';
import { testSpawner } from './test-spawner.js';

const HUGE = 600 * 1024 * 1024;
const GAMMA = ALPHA.replaceAll('alpha', 'gamma');

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(): Promise<Fixture> {
  const fx = await fixture();
  cleanups.push(() => fx.cleanup());
  await fx.write(GAMMA, 'templates', 'gamma.yaml');
  return fx;
}

/** A sparse file of `size` bytes at `path`. */
async function sparse(path: string, size: number): Promise<void> {
  await writeFile(path, '');
  await truncate(path, size);
}

test('a 600 MB template: the list, the template and /health answer 200; it is listed with limit.size and the others are untouched', async () => {
  const fx = await setup();
  await sparse(fx.at('templates', 'huge.yaml'), HUGE);
  const app = await fx.open();
  cleanups.push(() => app.close());
  const list = await app.inject({ url: `${API}/templates` });
  expect(list.statusCode).toBe(200);
  const listed = list.json().templates.filter((t: { read_only: boolean }) => !t.read_only);
  expect(listed.map((t: { name: string; valid: boolean; errors: number }) => [t.name, t.valid, t.errors])).toEqual([
    ['alpha', true, 0],
    ['beta', true, 0],
    ['gamma', true, 0],
    ['huge', false, 1],
  ]);
  const one = await app.inject({ url: `${API}/templates/huge` });
  expect(one.statusCode).toBe(200);
  expect(one.json().problems.map((p: { code: string }) => p.code)).toEqual(['limit.size']);
  expect((await app.inject({ url: `${API}/health` })).statusCode).toBe(200);
});

test('a template just over 128 KiB is listed with limit.size and never read (no source answered)', async () => {
  const fx = await setup();
  // a valid template padded with a comment past the cap: read, it would show its source
  await fx.write(`${GAMMA}#${'x'.repeat(128 * 1024)}\n`, 'templates', 'padded.yaml');
  const app = await fx.open();
  cleanups.push(() => app.close());
  const one = await app.inject({ url: `${API}/templates/padded` });
  expect(one.statusCode).toBe(200);
  expect(one.json()).toMatchObject({ source: '', valid: false });
  expect(one.json().problems.map((p: { code: string }) => p.code)).toEqual(['limit.size']);
  expect((await app.inject({ url: `${API}/templates/gamma` })).json().valid).toBe(true);
});

test('a 600 MB role.md: /roles and /health answer 200, the role is listed with limit.size', async () => {
  const fx = await setup();
  await mkdir(fx.at('roles', 'big'), { recursive: true });
  await sparse(fx.at('roles', 'big', 'role.md'), HUGE);
  const app = await fx.open();
  cleanups.push(() => app.close());
  const roles = await app.inject({ url: `${API}/roles` });
  expect(roles.statusCode).toBe(200);
  expect(roles.json().roles.map((r: { name: string; valid: boolean }) => [r.name, r.valid])).toEqual([
    ['big', false],
    ['reviewer', true],
    ['worker', true],
  ]);
  const big = await app.inject({ url: `${API}/roles/big` });
  expect(big.json().problems.map((p: { code: string }) => p.code)).toEqual(['limit.size']);
  expect((await app.inject({ url: `${API}/health` })).statusCode).toBe(200);
});

test('a 600 MB marker and a 600 MB intent: skipped (the intent logged at start), and everything still lists', async () => {
  const fx = await setup();
  await fx.write(ALPHA.replace('one worker', 'two workers'), 'templates', 'alpha.yaml');
  await sparse(fx.at('templates', '.alpha.shipped'), HUGE);
  await sparse(fx.at('templates', '.beta.intent'), HUGE);
  const { logger, lines } = keepLog();
  const lib = await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness, logger });
  cleanups.push(() => lib.close());
  expect(warnsAbout(lines, 'templates/.beta.intent')).toHaveLength(1);
  // no marker it can read: an edited copy of a shipped template, as the states table says
  expect((await lib.listTemplates()).map((e) => [e.name, e.state])).toEqual([
    ['alpha', 'edited'],
    ['beta', 'shipped'],
    ['gamma', 'custom'],
    ['ticket-input', 'read_only'],
  ]);
});
