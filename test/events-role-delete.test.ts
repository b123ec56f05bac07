/** DELETE /api/desk/roles/:name (docs/api.md, Roles), and the events every role and template write publishes. */
import { stat } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type App, buildApp } from '../src/app.js';
import type { DeskEvent } from '../src/library/events/bus.js';
import { openLibrary } from '../src/library/library.js';
import type { Library } from '../src/library/types.js';
import { ALPHA, API, type Fixture, fixture } from './http-fixture.js';
import { testSpawner } from './test-spawner.js';

let fx: Fixture;
let lib: Library;
let app: App;
let events: DeskEvent[];
beforeEach(async () => {
  fx = await fixture();
  lib = await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness });
  app = await buildApp({ library: lib, web: false });
  events = [];
  lib.events.subscribe((e) => events.push(e));
});
afterEach(async () => {
  await app.close();
  await lib.close();
  await fx.cleanup();
});

const saveRole = (name: string) => app.inject({ method: 'POST', url: `${API}/role`, payload: { name, role_md: `# ${name}\n\nTriages.\n` } });
const del = (name: string, headers: Record<string, string> = {}) => app.inject({ method: 'DELETE', url: `${API}/roles/${name}`, headers });
const exists = (p: string) => stat(p).then(() => true, () => false);

describe('DELETE /roles/:name', () => {
  test('a custom role: 204, its folder gone, role.changed with null state', async () => {
    const saved = await saveRole('triager');
    expect(saved.json().state).toBe('custom');
    expect(await exists(fx.at('roles', 'triager', 'role.md'))).toBe(true);
    const r = await del('triager', { 'if-match': saved.headers.etag as string });
    expect(r.statusCode).toBe(204);
    expect(await exists(fx.at('roles', 'triager'))).toBe(false);
    expect((await app.inject({ url: `${API}/roles/triager` })).statusCode).toBe(404);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      // `who`: the client address, on a desk with no users (docs/api.md, Events)
      ['role.changed', { name: 'triager', state: 'custom', etag: saved.headers.etag, who: '127.0.0.1' }],
      ['role.changed', { name: 'triager', state: null, etag: null, who: '127.0.0.1' }],
    ]);
  });

  test('a stale If-Match is 412 and the role stays', async () => {
    const first = await saveRole('triager');
    await app.inject({ method: 'POST', url: `${API}/role`, payload: { name: 'triager', role_md: '# t\n\nChanged.\n' } });
    const r = await del('triager', { 'if-match': first.headers.etag as string });
    expect(r.statusCode).toBe(412);
    expect(r.json().code).toBe('precondition_failed');
    expect(await exists(fx.at('roles', 'triager', 'role.md'))).toBe(true);
    expect(events.filter((e) => e.type === 'role.changed' && e.data.state === null)).toEqual([]);
  });

  test('a built-in role is 409 not_custom, edited or not; nothing changes', async () => {
    expect((await del('worker')).json()).toMatchObject({ status: 409, code: 'not_custom' });
    await app.inject({ method: 'POST', url: `${API}/role`, payload: { name: 'worker', role_md: '# Worker\n\nEdited.\n' } });
    const r = await del('worker');
    expect(r.statusCode).toBe(409);
    expect(r.json().code).toBe('not_custom');
    expect(await exists(fx.at('roles', 'worker', 'role.md'))).toBe(true);
  });

  test('an unknown role is 404, a bad name 400', async () => {
    const r = await del('nobody');
    expect(r.statusCode).toBe(404);
    expect(r.json().code).toBe('not_found');
    expect((await del('Bad-Name')).json().code).toBe('invalid_name');
    expect(events).toEqual([]);
  });
});

describe('writes publish', () => {
  test('template save, reset and delete, role reset: one event each, in order', async () => {
    const put = await app.inject({ method: 'PUT', url: `${API}/templates/alpha`, payload: { source: ALPHA.replace('one worker', 'a worker') } });
    expect(put.statusCode).toBe(200);
    const reset = await app.inject({ method: 'POST', url: `${API}/settings/template-reset`, payload: { name: 'alpha' } });
    expect(reset.statusCode).toBe(200);
    const custom = await app.inject({ method: 'PUT', url: `${API}/templates/gamma`, payload: { source: ALPHA.replace('name: alpha', 'name: gamma') } });
    await app.inject({ method: 'DELETE', url: `${API}/templates/gamma` });
    await app.inject({ method: 'POST', url: `${API}/role`, payload: { name: 'worker', reset: true } });
    // a refused write publishes nothing
    await app.inject({ method: 'DELETE', url: `${API}/templates/alpha` });
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['template.changed', { name: 'alpha', state: 'edited', etag: put.headers.etag, who: '127.0.0.1' }],
      ['template.changed', { name: 'alpha', state: 'shipped', etag: reset.headers.etag, who: '127.0.0.1' }],
      ['template.changed', { name: 'gamma', state: 'custom', etag: custom.headers.etag, who: '127.0.0.1' }],
      ['template.changed', { name: 'gamma', state: null, etag: null, who: '127.0.0.1' }],
      ['role.changed', { name: 'worker', state: 'shipped', etag: expect.stringMatching(/^"[0-9a-f]{64}"$/), who: '127.0.0.1' }],
    ]);
    // ids count up within one run
    expect(events.map((e) => Number(e.id.split('.')[1]))).toEqual([1, 2, 3, 4, 5]);
  });
});
