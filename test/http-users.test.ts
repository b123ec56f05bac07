/**
 * Users and roles over HTTP (docs/security.md, Users and roles): every route
 * × every role → allowed or 403 forbidden; no or an unknown token → 401,
 * also on loopback; the conductor cannot save, decide or sync and writes
 * nothing trying; GET /me; `who` and the commit author are the person.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type App, buildApp } from '../src/app.js';
import { ROUTE_ROLES } from '../src/http/auth-rules.js';
import { UserDirectory } from '../src/http/users-directory.js';
import { openLibrary } from '../src/library/library.js';
import type { Library } from '../src/library/types.js';
import type { DeskEvent } from '../src/schema/events.js';
import type { UserRole } from '../src/http/users.js';
import { ALPHA, API, type Fixture, fixture } from './http-fixture.js';
import { BY_ROLE, bearer, TOKENS, writeUsers } from './users-fixture.js';
import { testSpawner } from './test-spawner.js';

/**
 * The least role each route of docs/api.md needs, written out here rather
 * than read from the table under test. Params: `{name}` alpha, `{id}` and
 * `{commit}` made up (an allowed caller gets a 400 or 404, never 401/403).
 */
const EXPECTED: [method: string, path: string, role: UserRole][] = [
  ['GET', '/templates', 'viewer'],
  ['GET', '/templates/alpha', 'viewer'],
  ['PUT', '/templates/alpha', 'editor'],
  ['DELETE', '/templates/alpha', 'editor'],
  ['POST', '/settings/template-reset', 'editor'],
  ['POST', '/settings/template-acknowledge', 'editor'],
  ['GET', '/templates/alpha/diff', 'viewer'],
  ['POST', '/templates/alpha/rebase', 'viewer'],
  ['POST', '/templates/propose', 'viewer'],
  ['POST', '/templates/alpha/launch-preview', 'viewer'],
  ['POST', '/proposals', 'conductor'],
  ['GET', '/proposals', 'viewer'],
  ['GET', '/proposals/p-none', 'viewer'],
  ['POST', '/proposals/p-none/save', 'editor'],
  ['POST', '/proposals/p-none/dismiss', 'editor'],
  ['GET', '/roles', 'viewer'],
  ['GET', '/roles/worker', 'viewer'],
  ['POST', '/role', 'editor'],
  ['DELETE', '/roles/worker', 'editor'],
  ['GET', '/events', 'viewer'],
  ['GET', '/schema/template.json', 'viewer'],
  ['GET', '/health', 'viewer'],
  ['GET', '/status', 'viewer'],
  ['GET', '/catalogue', 'viewer'],
  ['GET', '/me', 'viewer'],
  ['GET', '/templates/alpha/history', 'viewer'],
  ['GET', '/templates/alpha/versions/abcdef1', 'viewer'],
  ['POST', '/templates/alpha/restore', 'editor'],
  ['GET', '/roles/worker/history', 'viewer'],
  ['GET', '/roles/worker/versions/abcdef1', 'viewer'],
  ['GET', '/roles/worker/diff', 'viewer'],
  ['POST', '/roles/worker/restore', 'editor'],
  ['GET', '/history', 'viewer'],
  ['POST', '/launches', 'conductor'],
  ['GET', '/launches', 'viewer'],
  ['GET', '/launches/l-none', 'viewer'],
  ['POST', '/launches/l-none/approve', 'editor'],
  ['POST', '/launches/l-none/dismiss', 'editor'],
  ['POST', '/launches/l-none/withdraw', 'conductor'],
  ['GET', '/sync', 'viewer'],
  ['POST', '/sync', 'editor'],
  ['GET', '/sync/templates/alpha', 'viewer'],
  ['POST', '/sync/templates/alpha/rebase', 'viewer'],
  ['POST', '/sync/templates/alpha/keep', 'editor'],
  ['POST', '/sync/templates/alpha/take', 'editor'],
  ['GET', '/sync/roles/worker', 'viewer'],
  ['POST', '/sync/roles/worker/keep', 'editor'],
  ['POST', '/sync/roles/worker/take', 'editor'],
  ['GET', '/upgrade', 'viewer'],
  ['POST', '/upgrade', 'editor'],
  ['GET', '/openapi.json', 'viewer'],
  ['POST', '/mcp', 'conductor'],
  ['GET', '/mcp', 'viewer'],
  ['DELETE', '/mcp', 'viewer'],
];
const RANK: UserRole[] = ['viewer', 'conductor', 'editor'];

let fx: Fixture;
let app: App;
/** opened here, so the tests can wait for its commits to land */
let library: Library;

beforeAll(async () => {
  fx = await fixture();
  const users = UserDirectory.open({ file: await writeUsers(fx.dir) });
  library = await openLibrary({ spawner: testSpawner, root: fx.root!, harnessDir: fx.harness, history: { author: 'Desk One <desk@one.example>', authorOf: (w) => users.authorOf(w) } });
  app = await buildApp({ library, web: false, users, authRate: { max: 1_000_000 } });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await library?.close();
  await fx?.cleanup();
});

const send = (method: string, path: string, headers: Record<string, string> = {}) =>
  app.inject({
    method: method as 'GET',
    url: `${API}${path}`,
    headers: { ...(method === 'GET' || method === 'DELETE' ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(method === 'GET' || method === 'DELETE' ? {} : { payload: '{}' }),
  });

/** HEAD once every commit queued so far has landed (commits land a little after the write that queued them) */
async function settledHead(): Promise<string> {
  await library.history.settle();
  return headOf();
}

/** HEAD's commit, or '' before the first */
const headOf = () => execFileSync('git', ['-C', fx.root!, 'log', '-1', '--format=%H', '--all'], { encoding: 'utf8' }).trim();
const git = (...args: string[]) => execFileSync('git', ['-C', fx.root!, ...args], { encoding: 'utf8' });

describe('every route × every role', () => {
  test('the table in src/http/auth-rules.ts holds every route of the app, and only those', () => {
    // every route the OpenAPI document lists (all but the hidden document itself), as fastify names it
    const doc = app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const inApp = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => m !== 'head')
        .map((m) => `${m.toUpperCase()} ${path.replace(/\{([a-z]+)\}/g, ':$1')}`),
    );
    inApp.push(`GET ${API}/openapi.json`);
    // the MCP endpoint's GET and DELETE, hidden from the document: they only answer 405 (routes/mcp.ts)
    inApp.push(`GET ${API}/mcp`, `DELETE ${API}/mcp`);
    expect(inApp.filter((k) => !(k in ROUTE_ROLES)), 'routes with no role in the table').toEqual([]);
    expect(Object.keys(ROUTE_ROLES).filter((k) => !inApp.includes(k)), 'table rows with no route').toEqual([]);
    // and with the role this file expects of each
    for (const [method, path, role] of EXPECTED) {
      const key = Object.keys(ROUTE_ROLES).find((k) => {
        const [m, p] = k.split(' ') as [string, string];
        return m === method && new RegExp(`^${p.replace(/:[a-z]+/g, '[^/]+')}$`).test(`${API}${path}`);
      });
      expect(key && ROUTE_ROLES[key], `${method} ${path}`).toBe(role);
    }
    expect(EXPECTED.length).toBe(Object.keys(ROUTE_ROLES).length);
  });

  test.each(EXPECTED.filter(([, p]) => p !== '/events'))('%s %s needs %s', async (method, path, role) => {
    const before = await settledHead();
    // the refused roles ask first (RANK is lowest first): nothing they sent may have made a commit
    for (const asRole of RANK) {
      if (asRole === role) expect(headOf(), 'a refused request made a commit').toBe(before);
      const r = await send(method, path, bearer(BY_ROLE[asRole]));
      if (RANK.indexOf(asRole) >= RANK.indexOf(role)) {
        expect([401, 403], `${asRole}: ${r.body}`).not.toContain(r.statusCode);
      } else {
        expect(r.statusCode, `${asRole}: ${r.body}`).toBe(403);
        expect(r.json()).toMatchObject({ code: 'forbidden', needed_role: role });
      }
    }
    const none = await send(method, path);
    expect(none.statusCode).toBe(401);
    expect(none.json().code).toBe('unauthorized');
    const wrong = await send(method, path, { authorization: 'Bearer not-a-token-of-anyone' });
    expect(wrong.statusCode).toBe(401);
  });

  // an allowed GET /events is a stream that stays open: inject would wait for ever (the stream's own tests open it with a token)
  test('GET /events: 401 without a token or with a wrong one, in the header or the query', async () => {
    expect((await send('GET', '/events')).statusCode).toBe(401);
    expect((await send('GET', '/events?token=wrong')).statusCode).toBe(401);
    expect((await send('GET', '/events', { authorization: 'Bearer wrong' })).statusCode).toBe(401);
  });
});

describe('GET /me', () => {
  test.each([
    ['vera', 'viewer'],
    ['carl', 'conductor'],
    ['ann', 'editor'],
  ] as const)('%s is a %s', async (who, role) => {
    const r = await send('GET', '/me', bearer(who));
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ name: who, role });
  });
});

describe('the conductor', () => {
  test('proposes and drafts, under its own name whatever the body says', async () => {
    const p = await app.inject({
      method: 'POST',
      url: `${API}/proposals`,
      headers: { ...bearer('carl'), 'content-type': 'application/json' },
      payload: { name: 'gamma', purpose: 'try', source: ALPHA.replace('name: alpha', 'name: gamma'), from: 'someone-else' },
    });
    expect(p.statusCode).toBe(201);
    expect(p.json().from).toBe('carl');
    const l = await app.inject({
      method: 'POST',
      url: `${API}/launches`,
      headers: { ...bearer('carl'), 'content-type': 'application/json' },
      payload: { template: 'alpha', from: 'run-7' },
    });
    expect([201, 422]).toContain(l.statusCode);
    if (l.statusCode === 201) expect(l.json().from).toBe('carl');
  });

  test('cannot save, decide or sync, and writes nothing trying', async () => {
    const p = await app.inject({
      method: 'POST',
      url: `${API}/proposals`,
      headers: { ...bearer('carl'), 'content-type': 'application/json' },
      payload: { name: 'delta', purpose: 'try', source: ALPHA.replace('name: alpha', 'name: delta') },
    });
    const id = p.json().id as string;
    const before = await settledHead(); // the create's commit has landed
    const tries = [
      ['PUT', '/templates/alpha', { source: ALPHA.replace('one worker', 'mine') }],
      ['POST', `/proposals/${id}/save`, {}],
      ['POST', `/proposals/${id}/dismiss`, {}],
      ['POST', '/sync', {}],
      ['POST', '/settings/template-reset', { name: 'alpha' }],
      ['POST', '/upgrade', {}],
    ] as const;
    for (const [method, path, body] of tries) {
      const r = await app.inject({ method, url: `${API}${path}`, headers: { ...bearer('carl'), 'content-type': 'application/json' }, payload: body });
      expect(r.statusCode, `${method} ${path}`).toBe(403);
      expect(r.json()).toMatchObject({ code: 'forbidden', needed_role: 'editor' });
    }
    expect((await send('GET', `/proposals/${id}`, bearer('carl'))).json().status).toBe('pending');
    expect(await fx.read('templates', 'alpha.yaml')).toBeNull();
    expect(await settledHead()).toBe(before);
  });
});

describe('who is the person', () => {
  test('a save by ann: history says ann, git log has ann as author and DESK_AUTHOR as committer', async () => {
    const source = ALPHA.replace('one worker then a gate', 'ann was here');
    const r = await app.inject({ method: 'PUT', url: `${API}/templates/alpha`, headers: { ...bearer('ann'), 'content-type': 'application/json' }, payload: { source } });
    expect(r.statusCode).toBe(200);
    await expect
      .poll(async () => (await send('GET', '/templates/alpha/history', bearer('vera'))).json().versions?.[0]?.who, { timeout: 5000 })
      .toBe('ann');
    const [v] = (await send('GET', '/templates/alpha/history', bearer('vera'))).json().versions;
    expect(v.author).toBe('ann <ann@example.org>');
    const recent = (await send('GET', '/history', bearer('vera'))).json();
    expect(JSON.stringify(recent)).toContain('"who":"ann"');
    const line = git('log', '-1', '--format=%an <%ae>|%cn <%ce>|%(trailers:key=Who,valueonly)', '--', 'templates/alpha.yaml').trim();
    expect(line).toBe('ann <ann@example.org>|Desk One <desk@one.example>|ann');
  });

  test('a user without an address is authored as name <name@desk>', async () => {
    const source = ALPHA.replace('one worker then a gate', 'bob was here');
    const etag = (await send('GET', '/templates/alpha', bearer('bob'))).headers.etag as string;
    const r = await app.inject({ method: 'PUT', url: `${API}/templates/alpha`, headers: { ...bearer('bob'), 'content-type': 'application/json', 'if-match': etag }, payload: { source } });
    expect(r.statusCode).toBe(200);
    await expect.poll(() => git('log', '-1', '--format=%an <%ae>', '--', 'templates/alpha.yaml').trim(), { timeout: 5000 }).toBe('bob <bob@desk>');
  });
});

describe('who decided', () => {
  test('ann dismisses a proposal and approves a launch: decided_by, the commit author and the event say ann', async () => {
    const own = await fixture();
    const users = UserDirectory.open({ file: await writeUsers(own.dir) });
    const library = await openLibrary({ spawner: testSpawner, root: own.root!, harnessDir: own.harness, history: { author: 'Desk One <desk@one.example>', authorOf: (w) => users.authorOf(w) } });
    const events: DeskEvent[] = [];
    library.events.subscribe((e) => events.push(e));
    const own2 = await buildApp({ library, web: false, users, authRate: { max: 1_000_000 } });
    const post = (path: string, who: 'ann' | 'carl', payload: object) =>
      own2.inject({ method: 'POST', url: `${API}${path}`, headers: { ...bearer(who), 'content-type': 'application/json' }, payload });
    const lastOf = (path: string) => execFileSync('git', ['-C', own.root!, 'log', '-1', '--format=%an|%(trailers:key=Who,valueonly)', '--', path], { encoding: 'utf8' }).trim();
    try {
      const p = (await post('/proposals', 'carl', { name: 'gamma', purpose: 'try', source: ALPHA.replace('name: alpha', 'name: gamma') })).json();
      const dismissed = await post(`/proposals/${p.id}/dismiss`, 'ann', { note: 'not now' });
      expect(dismissed.statusCode).toBe(200);
      expect(dismissed.json().decided_by).toBe('ann');
      const listed = (await own2.inject({ url: `${API}/proposals?status=decided`, headers: bearer('ann') })).json();
      expect(listed.proposals[0]).toMatchObject({ id: p.id, decided_by: 'ann' });
      expect(events.find((e) => e.type === 'proposal.decided')?.data).toMatchObject({ id: p.id, status: 'dismissed', who: 'ann' });
      await expect.poll(() => lastOf(`proposals/${p.id}.json`), { timeout: 5000 }).toBe('ann|ann');

      const l = await post('/launches', 'carl', { template: 'alpha', inputs: {} });
      expect(l.statusCode).toBe(201);
      expect(l.json().decided_by).toBeNull();
      const approved = await post(`/launches/${l.json().id}/approve`, 'ann', {});
      expect(approved.statusCode).toBe(200);
      expect(approved.json()).toMatchObject({ status: 'approved', decided_by: 'ann' });
      expect(events.find((e) => e.type === 'launch.decided')?.data).toMatchObject({ id: l.json().id, status: 'approved', who: 'ann' });
      expect(events.find((e) => e.type === 'launch.drafted')?.data).not.toHaveProperty('who');
      await expect.poll(() => lastOf(`launches/${l.json().id}.json`), { timeout: 5000 }).toBe('ann|ann');
      // the record on disk keeps it, so a restart answers the same
      expect(JSON.parse((await own.read('launches', `${l.json().id}.json`))!).decided_by).toBe('ann');
      expect(JSON.parse((await own.read('proposals', `${p.id}.json`))!).decided_by).toBe('ann');
    } finally {
      await own2.close();
      await library.close();
      await own.cleanup();
    }
  });
});

describe('without any user', () => {
  test('loopback asks nothing, /me is the nameless operator, who stays the address', async () => {
    const own = await fixture();
    const plain = await buildApp({ libraryOptions: { spawner: testSpawner, root: own.root, harnessDir: own.harness }, web: false });
    try {
      const me = await plain.inject({ url: `${API}/me` });
      expect(me.json()).toEqual({ name: null, role: 'editor' });
      const r = await plain.inject({ method: 'PUT', url: `${API}/templates/alpha`, headers: { 'content-type': 'application/json' }, payload: { source: ALPHA.replace('one worker', 'w') } });
      expect(r.statusCode).toBe(200);
      await expect.poll(async () => (await plain.inject({ url: `${API}/templates/alpha/history` })).json().versions?.[0]?.who, { timeout: 5000 }).toBe('127.0.0.1');
    } finally {
      await plain.close();
      await own.cleanup();
    }
  });

  test('DESK_TOKEN alone is one editor named desk', async () => {
    const own = await fixture();
    const app2 = await buildApp({ libraryOptions: { spawner: testSpawner, root: own.root, harnessDir: own.harness }, web: false, token: 'the-one-desk-token' });
    try {
      expect((await app2.inject({ url: `${API}/me` })).statusCode).toBe(401);
      const me = await app2.inject({ url: `${API}/me`, headers: { authorization: 'Bearer the-one-desk-token' } });
      expect(me.json()).toEqual({ name: 'desk', role: 'editor' });
    } finally {
      await app2.close();
      await own.cleanup();
    }
  });

  test('DESK_TOKEN beside the users file: both are known', async () => {
    const own = await fixture();
    const users = UserDirectory.open({ file: await writeUsers(own.dir), token: 'the-one-desk-token' });
    const app2 = await buildApp({ libraryOptions: { spawner: testSpawner, root: own.root, harnessDir: own.harness }, web: false, users });
    try {
      expect((await app2.inject({ url: `${API}/me`, headers: { authorization: 'Bearer the-one-desk-token' } })).json()).toEqual({ name: 'desk', role: 'editor' });
      expect((await app2.inject({ url: `${API}/me`, headers: { authorization: `Bearer ${TOKENS.vera}` } })).json()).toEqual({ name: 'vera', role: 'viewer' });
    } finally {
      await app2.close();
      await own.cleanup();
    }
  });
});
