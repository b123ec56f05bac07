/**
 * The operator's `templates/` or `roles/` folder replaced by a link
 * (docs/security.md, Odd files): the link is never followed. Reads treat the
 * folder as unavailable — shipped templates and roles still list and load,
 * /health answers — with one warning; writes there are refused 409
 * symlink_refused and nothing lands behind the link.
 */
import { mkdir, readdir, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { openLibrary } from '../src/library/library.js';
import { ALPHA, API, type Fixture, fixture, WORKER_MD } from './http-fixture.js';
import { keepLog } from './odd-files-helpers.js';
import { testSpawner } from './test-spawner.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A fixture whose `<folder>/` is a link to a folder outside the root holding one file. */
async function linked(folder: 'templates' | 'roles') {
  const fx = await fixture();
  cleanups.push(() => fx.cleanup());
  const outside = join(fx.dir, 'outside');
  await mkdir(join(outside, 'gamma'), { recursive: true });
  await writeFile(join(outside, 'gamma.yaml'), ALPHA.replaceAll('alpha', 'gamma'));
  await writeFile(join(outside, 'gamma', 'role.md'), '# Gamma\n');
  await mkdir(fx.root!, { recursive: true });
  await symlink(outside, join(fx.root!, folder));
  return { fx, outside };
}

/** The app over `fx`, closed after the test. */
async function opened(fx: Fixture) {
  const app = await fx.open();
  cleanups.push(() => app.close());
  return app;
}

test('a linked templates folder: the list, a shipped template and /health answer 200; a save is 409 symlink_refused', async () => {
  const { fx, outside } = await linked('templates');
  const app = await opened(fx);
  const list = await app.inject({ url: `${API}/templates` });
  expect(list.statusCode).toBe(200);
  expect(list.json().templates.map((t: { name: string; state: string }) => [t.name, t.state])).toEqual([
    ['alpha', 'shipped'],
    ['beta', 'shipped'],
    ['ticket-input', 'read_only'],
  ]);
  const one = await app.inject({ url: `${API}/templates/alpha` });
  expect([one.statusCode, one.json().state]).toEqual([200, 'shipped']);
  expect((await app.inject({ url: `${API}/templates/gamma` })).statusCode).toBe(404);
  expect((await app.inject({ url: `${API}/health` })).statusCode).toBe(200);
  const save = await app.inject({ method: 'PUT', url: `${API}/templates/alpha`, payload: { source: ALPHA.replace('one worker', 'two workers') } });
  expect([save.statusCode, save.json().code]).toEqual([409, 'symlink_refused']);
  expect((await readdir(outside)).sort()).toEqual(['gamma', 'gamma.yaml']);
});

test('a linked roles folder: the roles and /health answer 200; a role save is 409 symlink_refused', async () => {
  const { fx, outside } = await linked('roles');
  const app = await opened(fx);
  const roles = await app.inject({ url: `${API}/roles` });
  expect(roles.statusCode).toBe(200);
  expect(roles.json().roles.map((r: { name: string; state: string }) => [r.name, r.state])).toEqual([
    ['reviewer', 'shipped'],
    ['worker', 'shipped'],
  ]);
  expect((await app.inject({ url: `${API}/roles/worker` })).statusCode).toBe(200);
  expect((await app.inject({ url: `${API}/templates` })).statusCode).toBe(200);
  expect((await app.inject({ url: `${API}/health` })).statusCode).toBe(200);
  const save = await app.inject({ method: 'POST', url: `${API}/role`, payload: { name: 'worker', role_md: `${WORKER_MD}More.\n` } });
  expect([save.statusCode, save.json().code]).toEqual([409, 'symlink_refused']);
  expect((await readdir(outside)).sort()).toEqual(['gamma', 'gamma.yaml']);
});

test('the linked folder is logged once, however many reads meet it', async () => {
  const { fx } = await linked('templates');
  const { logger, lines } = keepLog();
  const lib = await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness, logger });
  cleanups.push(() => lib.close());
  for (let i = 0; i < 3; i++) await lib.listTemplates();
  await lib.getTemplate('alpha');
  expect(lines.filter((l) => l.level === 'warn' && l.obj.path === 'templates')).toHaveLength(1);
});

test('a linked .shipped-base folder is no kept base for a rebase, not a refusal', async () => {
  const fx = await fixture();
  cleanups.push(() => fx.cleanup());
  const app = await fx.open();
  const edited = ALPHA.replace('one worker', 'two workers');
  expect((await app.inject({ method: 'PUT', url: `${API}/templates/alpha`, payload: { source: edited } })).statusCode).toBe(200);
  await app.close();
  // the shipped template moves on, and the kept bases are replaced by a link to a copy of them
  await fx.ship('alpha', ALPHA.replace('then a gate', 'then a review gate'));
  await rename(fx.at('templates', '.shipped-base'), join(fx.dir, 'bases'));
  await symlink(join(fx.dir, 'bases'), fx.at('templates', '.shipped-base'));
  const again = await opened(fx);
  const r = await again.inject({ method: 'POST', url: `${API}/templates/alpha/rebase` });
  expect([r.statusCode, r.json().code]).toEqual([409, 'no_kept_base']);
});
