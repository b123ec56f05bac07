/**
 * History routes (docs/api.md, History): versions newest first and paged,
 * one version's bytes, a diff against a version, restore (validated, with
 * If-Match, committed as `restore <name> to <short>`), the same for roles,
 * the library's recent commits, and the coded refusals.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import { describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { ALPHA, API, fixture, openApp, WORKER_MD } from './http-fixture.js';
import { testSpawner } from './test-spawner.js';

const ctx = openApp();

const call = async (opts: InjectOptions) => {
  const r = await ctx.app.inject(opts);
  return { status: r.statusCode, body: r.json(), etag: r.headers.etag as string | undefined };
};
const get = (url: string) => call({ url: `${API}${url}` });
const post = (url: string, payload: unknown, headers: Record<string, string> = {}) => call({ method: 'POST', url: `${API}${url}`, payload: payload as object, headers });

/** alpha with another purpose: a valid edit per `n` */
const alphaWith = (n: number) => ALPHA.replace('purpose: one worker then a gate', `purpose: one worker then a gate, take ${n}`);

async function saveAlpha(n: number): Promise<string> {
  const r = await call({ method: 'PUT', url: `${API}/templates/alpha`, payload: { source: alphaWith(n) } });
  expect(r.status).toBe(200);
  return r.etag!;
}

interface V {
  commit: string;
  message: string;
  state: string;
  etag: string | null;
  who: string | null;
}

describe('GET /templates/:name/history', () => {
  test('three saves are three versions, newest first, each with the ETag and state it would load with', async () => {
    const etags = [await saveAlpha(1), await saveAlpha(2), await saveAlpha(3)];
    const r = await get('/templates/alpha/history');
    expect(r.status).toBe(200);
    const vs = r.body.versions as V[];
    const saves = vs.filter((v) => v.message.startsWith('save alpha'));
    expect(saves.map((v) => v.etag)).toEqual([...etags].reverse());
    for (const v of saves) {
      expect(v.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(v.state).toBe('edited');
      expect(v.who).toBe('127.0.0.1');
    }
    expect(r.body.next).toBeNull();
  });

  test('pages: limit, then before = next, until next is null', async () => {
    for (const n of [1, 2, 3]) await saveAlpha(n);
    const all = (await get('/templates/alpha/history')).body.versions as V[];
    const first = await get('/templates/alpha/history?limit=2');
    expect(first.body.versions).toEqual(all.slice(0, 2));
    expect(first.body.next).toBe(all[1]!.commit);
    const second = await get(`/templates/alpha/history?limit=2&before=${first.body.next}`);
    expect(second.body.versions).toEqual(all.slice(2, 4));
    expect(second.body.next).toBe(all.length > 4 ? all[3]!.commit : null);
  });

  test('a reset is a version with no copy: state shipped, etag null', async () => {
    await saveAlpha(1);
    expect((await post('/settings/template-reset', { name: 'alpha' })).status).toBe(200);
    const [last] = (await get('/templates/alpha/history')).body.versions as V[];
    expect(last).toMatchObject({ state: 'shipped', etag: null });
  });

  test('limits out of bounds and a bad before are 400 bad_request; an unknown name is 404', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'limit=-1', 'before=xyz', 'before=12', 'other=1']) {
      const r = await get(`/templates/alpha/history?${q}`);
      expect([q, r.status, r.body.code]).toEqual([q, 400, 'bad_request']);
    }
    expect((await get('/templates/nobody/history')).body.code).toBe('not_found');
    expect((await get('/templates/Bad_Name/history')).body.code).toBe('invalid_name');
  });
});

describe('GET /templates/:name/versions/:commit', () => {
  test("answers that version's bytes and ETag; unknown 404, malformed 400", async () => {
    await saveAlpha(1);
    const etag2 = await saveAlpha(2);
    const [v2, v1] = (await get('/templates/alpha/history')).body.versions as V[];
    const r1 = await get(`/templates/alpha/versions/${v1!.commit}`);
    expect(r1.status).toBe(200);
    expect(r1.body).toEqual({ commit: v1!.commit, source: alphaWith(1), etag: v1!.etag });
    expect((await get(`/templates/alpha/versions/${v2!.commit.slice(0, 7)}`)).body.etag).toBe(etag2);
    const unknown = await get(`/templates/alpha/versions/${'de'.repeat(20)}`);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'version_not_found']);
    const malformed = await get('/templates/alpha/versions/HEAD');
    expect([malformed.status, malformed.body.code]).toEqual([400, 'bad_request']);
    // a commit where beta has no copy
    expect((await get(`/templates/beta/versions/${v1!.commit}`)).body.code).toBe('version_not_found');
  });
});

describe('GET /templates/:name/diff?against=version:<commit>', () => {
  test('the text and graph diff against a version', async () => {
    await saveAlpha(1);
    await saveAlpha(2);
    const [, v1] = (await get('/templates/alpha/history')).body.versions as V[];
    const r = await get(`/templates/alpha/diff?against=version:${v1!.commit}`);
    expect(r.status).toBe(200);
    expect(r.body.against).toEqual({ name: 'alpha', kind: 'version', commit: v1!.commit });
    expect(r.body.identical).toBe(false);
    expect(r.body.unified).toContain('-  purpose: one worker then a gate, take 1');
    expect(r.body.unified).toContain('+  purpose: one worker then a gate, take 2');
    expect(r.body.graph.header).toEqual([{ field: 'purpose', before: 'one worker then a gate, take 1', after: 'one worker then a gate, take 2' }]);
    expect((await get(`/templates/alpha/diff?against=version:${'0'.repeat(40)}`)).body.code).toBe('version_not_found');
    expect((await get('/templates/alpha/diff?against=version:nope')).body.code).toBe('bad_request');
  });
});

describe('POST /templates/:name/restore', () => {
  test('writes that version’s bytes, answers like a save, and commits `restore alpha to <short>`', async () => {
    await saveAlpha(1);
    const etag = await saveAlpha(2);
    const [, v1] = (await get('/templates/alpha/history')).body.versions as V[];
    const r = await post('/templates/alpha/restore', { commit: v1!.commit }, { 'if-match': etag });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'alpha', state: 'edited', source: alphaWith(1) });
    expect(r.etag).toBe(v1!.etag);
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBe(alphaWith(1));
    const [last] = (await get('/templates/alpha/history')).body.versions as V[];
    expect(last!.message).toBe(`restore alpha to ${v1!.commit.slice(0, 7)}`);
    expect(last!.etag).toBe(v1!.etag);
  });

  test('a stale If-Match is 412 and changes nothing', async () => {
    const old = await saveAlpha(1);
    await saveAlpha(2);
    const [head, v1] = (await get('/templates/alpha/history')).body.versions as V[];
    const r = await post('/templates/alpha/restore', { commit: v1!.commit }, { 'if-match': old });
    expect([r.status, r.body.code]).toEqual([412, 'precondition_failed']);
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBe(alphaWith(2));
    expect(((await get('/templates/alpha/history')).body.versions as V[])[0]!.commit).toBe(head!.commit);
  });

  test('a version not valid against today’s catalogue is 422 with problems, and nothing changes', async () => {
    // gamma uses a custom role; once the role is deleted, that version no longer validates
    expect((await post('/role', { name: 'checker', role_md: '# Checker\n\nChecks.\n' })).status).toBe(200);
    const gamma = ALPHA.replace('name: alpha', 'name: gamma').replace('role: worker', 'role: checker');
    expect((await call({ method: 'PUT', url: `${API}/templates/gamma`, payload: { source: gamma } })).status).toBe(200);
    const fine = gamma.replace('role: checker', 'role: worker');
    expect((await call({ method: 'PUT', url: `${API}/templates/gamma`, payload: { source: fine } })).status).toBe(200);
    expect((await ctx.app.inject({ method: 'DELETE', url: `${API}/roles/checker` })).statusCode).toBe(204);
    const [head, old] = (await get('/templates/gamma/history')).body.versions as V[];
    const r = await post('/templates/gamma/restore', { commit: old!.commit });
    expect([r.status, r.body.code]).toEqual([422, 'invalid_template']);
    expect(r.body.problems.length).toBeGreaterThan(0);
    expect(await ctx.fx.read('templates', 'gamma.yaml')).toBe(fine);
    expect(((await get('/templates/gamma/history')).body.versions as V[])[0]!.commit).toBe(head!.commit);
  });

  test('an unknown commit is 404, a malformed one or an extra key 400', async () => {
    await saveAlpha(1);
    expect((await post('/templates/alpha/restore', { commit: 'f'.repeat(40) })).body.code).toBe('version_not_found');
    expect((await post('/templates/alpha/restore', { commit: 'main' })).body.code).toBe('bad_request');
    expect((await post('/templates/alpha/restore', { commit: 'f'.repeat(40), force: true })).body.code).toBe('bad_request');
  });
});

describe('roles', () => {
  const md = (n: number) => `# Worker\n\nDoes the work, take ${n}.\n`;
  const saveWorker = async (n: number, kit: { tools: string[] } | null = null) => {
    const r = await post('/role', { name: 'worker', role_md: md(n), kit });
    expect(r.status).toBe(200);
    return r.etag!;
  };

  test('history, versions, diff and restore', async () => {
    const e1 = await saveWorker(1, { tools: ['shell.run'] });
    const e2 = await saveWorker(2);
    const h = await get('/roles/worker/history');
    expect(h.status).toBe(200);
    const [v2, v1] = h.body.versions as V[];
    expect([v2!.etag, v1!.etag]).toEqual([e2, e1]);
    expect(v1!.state).toBe('edited');

    const ver = await get(`/roles/worker/versions/${v1!.commit}`);
    expect(ver.body).toEqual({ commit: v1!.commit, role_md: md(1), kit_json: '{\n  "tools": [\n    "shell.run"\n  ]\n}\n', etag: e1 });
    expect((await get(`/roles/worker/versions/${'a'.repeat(40)}`)).body.code).toBe('version_not_found');

    const d = await get(`/roles/worker/diff?against=version:${v1!.commit}`);
    expect(d.status).toBe(200);
    expect(d.body.identical).toBe(false);
    expect(d.body.role_md).toContain('-Does the work, take 1.');
    expect(d.body.role_md).toContain('+Does the work, take 2.');
    expect(d.body.kit_json).toContain('-    "shell.run"');

    const stale = await post('/roles/worker/restore', { commit: v1!.commit }, { 'if-match': e1 });
    expect(stale.body.code).toBe('precondition_failed');
    const r = await post('/roles/worker/restore', { commit: v1!.commit }, { 'if-match': e2 });
    expect(r.status).toBe(200);
    expect(r.etag).toBe(e1);
    expect(await ctx.fx.read('roles', 'worker', 'role.md')).toBe(md(1));
    expect(await ctx.fx.read('roles', 'worker', 'kit.json')).toBe('{\n  "tools": [\n    "shell.run"\n  ]\n}\n');
    const [last] = (await get('/roles/worker/history')).body.versions as V[];
    expect(last!.message).toBe(`restore role worker to ${v1!.commit.slice(0, 7)}`);
  });

  test('a reset reads state shipped; the built-in text reads same_as_shipped', async () => {
    await post('/role', { name: 'worker', role_md: WORKER_MD, kit: { tools: ['shell.run'] } });
    await post('/role', { name: 'worker', reset: true });
    const [reset, same] = (await get('/roles/worker/history')).body.versions as V[];
    expect(reset).toMatchObject({ state: 'shipped', etag: null });
    expect(same!.state).toBe('same_as_shipped');
  });

  test('unknown role 404, bad against 400', async () => {
    expect((await get('/roles/nobody/history')).body.code).toBe('not_found');
    expect((await get('/roles/worker/diff?against=shipped')).body.code).toBe('bad_request');
  });
});

describe('GET /history', () => {
  test('recent commits across names, newest first, with the names each changed, paged', async () => {
    await saveAlpha(1);
    await post('/role', { name: 'worker', role_md: '# Worker\n\nOther.\n' });
    const r = await get('/history?limit=2');
    expect(r.status).toBe(200);
    const [c1, c2] = r.body.commits as (V & { names: unknown[] })[];
    expect(c1!.names).toEqual([{ kind: 'role', name: 'worker' }]);
    expect(c2!.names).toEqual([{ kind: 'template', name: 'alpha' }]);
    expect(r.body.next === null || r.body.next === c2!.commit).toBe(true);
    expect((await get('/history?limit=1000')).body.code).toBe('bad_request');
  });
});

describe('history off', () => {
  test.each([
    ['git is missing', { git: '/nonexistent/git' }],
    ['there is no library root', null],
  ] as const)('when %s every history route is 503 history_unavailable; with a root a save still works', async (_, history) => {
    const fx = await fixture({ root: history !== null });
    // with a root, a save still lands when git is missing: history is off, not the library
    const app = await buildApp({ libraryOptions: { spawner: testSpawner, root: fx.root, harnessDir: fx.harness, ...(history ? { history } : {}) }, web: false });
    try {
      if (history) expect((await app.inject({ method: 'PUT', url: `${API}/templates/alpha`, payload: { source: alphaWith(1) } })).statusCode).toBe(200);
      const c = '0'.repeat(40);
      for (const [method, url, payload] of [
        ['GET', '/templates/alpha/history'],
        ['GET', `/templates/alpha/versions/${c}`],
        ['GET', `/templates/alpha/diff?against=version:${c}`],
        ['POST', '/templates/alpha/restore', { commit: c }],
        ['GET', '/roles/worker/history'],
        ['GET', `/roles/worker/versions/${c}`],
        ['GET', `/roles/worker/diff?against=version:${c}`],
        ['POST', '/roles/worker/restore', { commit: c }],
        ['GET', '/history'],
      ] as const) {
        const r = await app.inject({ method, url: `${API}${url}`, ...(payload ? { payload } : {}) });
        expect([url, r.statusCode, r.json().code]).toEqual([url, 503, 'history_unavailable']);
      }
    } finally {
      await app.close();
      await fx.cleanup();
    }
  });
});

describe('the git the history is given', () => {
  test('a page of versions reads every version through it, templates and roles', async () => {
    const fx = await fixture();
    // a git that notes each call, then runs the real one
    const bin = join(fx.dir, 'noting-git');
    const calls = join(fx.dir, 'calls');
    await writeFile(bin, `#!/bin/sh\necho "$*" >> '${calls}'\nexec git "$@"\n`);
    await chmod(bin, 0o755);
    const app = await buildApp({ libraryOptions: { spawner: testSpawner, root: fx.root, harnessDir: fx.harness, history: { git: bin } }, web: false });
    try {
      const put = (url: string, payload: object) => app.inject({ method: url.startsWith('/role') ? 'POST' : 'PUT', url: `${API}${url}`, payload });
      expect((await put('/templates/alpha', { source: alphaWith(1) })).statusCode).toBe(200);
      expect((await put('/role', { name: 'worker', role_md: '# Worker\n\nOther.\n' })).statusCode).toBe(200);
      await writeFile(calls, '');
      for (const url of ['/templates/alpha/history', '/roles/worker/history']) {
        const r = await app.inject({ url: `${API}${url}` });
        expect(r.statusCode).toBe(200);
        expect(r.json().versions[0]).toMatchObject({ state: 'edited' });
      }
      const batches = (await readFile(calls, 'utf8')).split('\n').filter((l) => l.includes('cat-file --batch'));
      expect(batches).toHaveLength(2);
    } finally {
      await app.close();
      await fx.cleanup();
    }
  });
});
