/** The proposal routes over a real library on temp folders: every route, every transition, and the refusals. */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { openLibrary } from '../src/library/library.js';
import { formatRecord } from '../src/library/records/kind.js';
import type { ProposalRecord } from '../src/library/records/proposal-record.js';
import { PROPOSAL_ID } from '../src/schema/proposals.js';
import { ALPHA, API, fixture, openApp } from './http-fixture.js';
import { testSpawner } from './test-spawner.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const GAMMA = ALPHA.replaceAll('alpha', 'gamma');
const EDITED = ALPHA.replace('one worker then a gate', 'one worker, edited');
const INVALID = GAMMA.replace('profile: read_only', 'profile: everything');

const ctx = openApp();

const propose = (body: Record<string, unknown>) => ctx.app.inject({ method: 'POST', url: `${API}/proposals`, payload: body });
async function created(name = 'gamma', source = GAMMA, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await propose({ name, purpose: 'a worker and a gate, proposed', source, ...extra });
  expect(r.statusCode).toBe(201);
  return r.json().id;
}
const get = (id: string) => ctx.app.inject({ url: `${API}/proposals/${id}` });
const list = (status?: string) => ctx.app.inject({ url: `${API}/proposals${status ? `?status=${status}` : ''}` });
const save = (id: string, headers: Record<string, string> = {}, payload?: Record<string, unknown>) =>
  payload === undefined
    ? ctx.app.inject({ method: 'POST', url: `${API}/proposals/${id}/save`, headers })
    : ctx.app.inject({ method: 'POST', url: `${API}/proposals/${id}/save`, headers, payload });
const dismiss = (id: string, note?: string) =>
  ctx.app.inject({ method: 'POST', url: `${API}/proposals/${id}/dismiss`, payload: note === undefined ? {} : { note } });
const files = async () => (await readdir(ctx.fx.at('proposals')).catch(() => [] as string[])).filter((f) => !f.startsWith('.'));

describe('POST /proposals', () => {
  test('keeps a valid proposal: 201 pending with its card, one record on disk', async () => {
    const r = await propose({ name: 'gamma', purpose: 'a worker and a gate', source: GAMMA, from: 'conductor-7' });
    expect(r.statusCode).toBe(201);
    const p = r.json();
    expect(p).toMatchObject({ status: 'pending', name: 'gamma', purpose: 'a worker and a gate', from: 'conductor-7', valid: true, problems: [] });
    expect(p.id).toMatch(PROPOSAL_ID);
    expect(Number.isNaN(Date.parse(p.created_at))).toBe(false);
    expect(p.card).toMatchObject({ name: 'gamma', valid: true, diff: null });
    expect(await files()).toEqual([`${p.id}.json`]);
    expect(JSON.parse((await ctx.fx.read('proposals', `${p.id}.json`))!)).toMatchObject({ id: p.id, status: 'pending', source: GAMMA });
  });

  test('an invalid template is kept, and its card says why', async () => {
    const p = (await propose({ name: 'gamma', purpose: 'broken on purpose', source: INVALID })).json();
    expect(p).toMatchObject({ status: 'pending', valid: false, from: null });
    expect(p.problems.map((x: { code: string }) => x.code)).toContain('model.profile_unknown');
  });

  test('a proposal varying a library template carries the diff against it', async () => {
    const p = (await propose({ name: 'alpha', purpose: 'alpha, edited', source: EDITED })).json();
    expect(p.card.diff).toMatchObject({ against: { name: 'alpha', kind: 'template' }, identical: false });
  });

  test.each([
    ['', 'purpose.empty'],
    ['   ', 'purpose.empty'],
    ['two\nlines', 'purpose.multiline'],
    ['a\r\nb', 'purpose.multiline'],
  ])('purpose %j is 422 invalid_proposal with %s, nothing kept', async (purpose, code) => {
    const r = await propose({ name: 'gamma', purpose, source: GAMMA });
    expect(r.statusCode).toBe(422);
    expect(r.json()).toMatchObject({ code: 'invalid_proposal', problems: [{ code, path: '/purpose', severity: 'error' }] });
    expect(await files()).toEqual([]);
  });

  test('a purpose with a trailing newline only is one line (trimmed), as in a header', async () => {
    expect((await propose({ name: 'gamma', purpose: 'one line\n', source: GAMMA })).json().purpose).toBe('one line');
  });

  test('a source over the 128 KiB save cap is 422 limit.size; one at the cap is kept', async () => {
    const over = `${GAMMA}#${'x'.repeat(128 * 1024)}\n`;
    const r = await propose({ name: 'gamma', purpose: 'huge', source: over });
    expect(r.statusCode).toBe(422);
    expect(r.json()).toMatchObject({ code: 'invalid_proposal', problems: [{ code: 'limit.size', path: '/source' }] });
    const at = `${GAMMA}#${'x'.repeat(128 * 1024 - GAMMA.length - 2)}\n`;
    expect(Buffer.byteLength(at)).toBe(128 * 1024);
    expect((await propose({ name: 'gamma', purpose: 'at the cap', source: at })).statusCode).toBe(201);
  });

  test('a bad name, an unknown key or a missing purpose is 400', async () => {
    expect((await propose({ name: 'Gamma', purpose: 'x', source: GAMMA })).json().code).toBe('invalid_name');
    expect((await propose({ name: 'gamma', purpose: 'x', source: GAMMA, force: true })).json().code).toBe('bad_request');
    expect((await propose({ name: 'gamma', source: GAMMA })).json().code).toBe('bad_request');
  });

  test('the 501st pending proposal is 409 too_many_proposals; a decision makes room', async () => {
    await ctx.app.close();
    const t = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 500; i++) {
      const id = `${(t + i).toString(36).padStart(9, '0')}-${i.toString(16).padStart(20, '0')}`;
      const rec: ProposalRecord = {
        v: 1, id, status: 'pending', name: 'gamma', purpose: 'p', from: null, created_at: new Date(t + i).toISOString(),
        decided_at: null, saved_as: null, etag: null, note: null, edited: false, decided_by: null, source: GAMMA, saving: null, replaced: null,
      };
      await ctx.fx.write(formatRecord(rec), 'proposals', `${id}.json`);
    }
    ctx.app = await ctx.fx.open();
    const full = (await list()).json();
    expect(full.pending).toBe(500);
    const r = await propose({ name: 'gamma', purpose: 'one too many', source: GAMMA });
    expect(r.statusCode).toBe(409);
    expect(r.json().code).toBe('too_many_proposals');
    expect((await files()).length).toBe(500);
    expect((await dismiss(full.proposals[0].id)).statusCode).toBe(200);
    expect((await propose({ name: 'gamma', purpose: 'now there is room', source: GAMMA })).statusCode).toBe(201);
  });
});

test('without a library root, a proposal is 409 no_library_root and the list is empty', async () => {
  await ctx.app.close();
  await ctx.fx.cleanup();
  ctx.fx = await fixture({ root: false });
  ctx.app = await ctx.fx.open();
  const r = await propose({ name: 'gamma', purpose: 'nowhere to keep it', source: GAMMA });
  expect(r.statusCode).toBe(409);
  expect(r.json().code).toBe('no_library_root');
  expect((await list('all')).json()).toEqual({ pending: 0, kept_decided: { count: 0, limit: 1000 }, proposals: [] });
});

describe('GET /proposals and /proposals/:id', () => {
  test('filters by status, newest first; pending counts the waiting ones whatever the filter', async () => {
    const a = await created();
    const b = await created('delta', GAMMA.replaceAll('gamma', 'delta'));
    expect((await dismiss(a, 'not now')).statusCode).toBe(200);
    const ids = (r: { json(): { proposals: { id: string }[] } }) => r.json().proposals.map((p) => p.id);
    expect(ids(await list())).toEqual([b]);
    expect(ids(await list('pending'))).toEqual([b]);
    expect(ids(await list('decided'))).toEqual([a]);
    expect(ids(await list('all'))).toEqual([b, a].sort().reverse());
    expect((await list('decided')).json().pending).toBe(1);
    expect((await list('all')).json().proposals[0]).not.toHaveProperty('card');
    expect((await list('everything')).statusCode).toBe(400);
  });

  test('an unknown id is 404 not_found; a malformed one is 400', async () => {
    const r = await get('000000000-00000000000000000000');
    expect(r.statusCode).toBe(404);
    expect(r.json().code).toBe('not_found');
    expect((await get('..%2F..%2Fetc')).statusCode).toBe(400);
    expect((await save('000000000-00000000000000000000')).statusCode).toBe(404);
    expect((await dismiss('000000000-00000000000000000000')).statusCode).toBe(404);
  });

  test('the card is worked out against the library as it is now', async () => {
    // a proposal naming a role the library has now; the role goes, and the proposal says so
    await ctx.app.close();
    await ctx.fx.write('# Critic\n', 'roles', 'critic', 'role.md');
    ctx.app = await ctx.fx.open();
    const id = await created('gamma', GAMMA.replace('role: worker', 'role: critic'));
    expect((await get(id)).json().valid).toBe(true);
    await ctx.app.close();
    await rm(ctx.fx.at('roles', 'critic'), { recursive: true, force: true });
    ctx.app = await ctx.fx.open();
    const now = (await get(id)).json();
    expect(now.valid).toBe(false);
    expect(now.problems.map((p: { code: string }) => p.code)).toContain('model.role_unknown');
  });

  test('a restart (a new library on the same root) still lists them, decided ones too', async () => {
    const a = await created();
    const b = await created();
    expect((await save(a)).statusCode).toBe(200);
    await ctx.reopen();
    const all = (await list('all')).json();
    expect(all.pending).toBe(1);
    expect(Object.fromEntries(all.proposals.map((p: { id: string; status: string }) => [p.id, p.status]))).toEqual({ [a]: 'saved', [b]: 'pending' });
    expect((await get(a)).json()).toMatchObject({ status: 'saved', saved_as: 'gamma' });
  });

  test('odd files in proposals/ are skipped: a FIFO, a link, a folder, torn JSON, one over the cap, a stranger', async () => {
    const id = await created();
    await ctx.app.close();
    const odd = (n: number) => `${'1'.repeat(9)}-${String(n).padStart(20, '0')}`;
    execFileSync('mkfifo', [ctx.fx.at('proposals', `${odd(1)}.json`)]);
    execFileSync('ln', ['-s', ctx.fx.at('proposals', `${id}.json`), ctx.fx.at('proposals', `${odd(2)}.json`)]);
    execFileSync('mkdir', [ctx.fx.at('proposals', `${odd(3)}.json`)]);
    await ctx.fx.write('{"v":1,"id":', 'proposals', `${odd(4)}.json`);
    await ctx.fx.write(' '.repeat(1024 * 1024), 'proposals', `${odd(5)}.json`);
    await ctx.fx.write('hello', 'proposals', 'notes.txt');
    ctx.app = await ctx.fx.open();
    const all = (await list('all')).json();
    expect(all.proposals.map((p: { id: string }) => p.id)).toEqual([id]);
    for (const n of [1, 2, 3, 4, 5]) expect((await get(odd(n))).statusCode).toBe(404);
    expect((await get(id)).statusCode).toBe(200);
  });
});

test('proposals/ as a link or a file: the service starts, lists none, and refuses to write there', async () => {
  await ctx.app.close();
  await ctx.fx.write('x', 'elsewhere', 'keep.txt');
  execFileSync('ln', ['-s', ctx.fx.at('elsewhere'), ctx.fx.at('proposals')]);
  ctx.app = await ctx.fx.open();
  expect((await list('all')).json()).toEqual({ pending: 0, kept_decided: { count: 0, limit: 1000 }, proposals: [] });
  const linked = await propose({ name: 'gamma', purpose: 'through a link', source: GAMMA });
  expect(linked.statusCode).toBe(409);
  expect(linked.json().code).toBe('symlink_refused');
  await ctx.app.close();
  await rm(ctx.fx.at('proposals'));
  await ctx.fx.write('not a folder', 'proposals');
  ctx.app = await ctx.fx.open();
  expect((await list('all')).json().proposals).toEqual([]);
  expect((await propose({ name: 'gamma', purpose: 'into a file', source: GAMMA })).json().code).toBe('library_unwritable');
  expect(await ctx.fx.read('proposals')).toBe('not a folder');
});

describe('POST /proposals/:id/save', () => {
  test('saves a new name: the template holds the proposal bytes, the proposal is saved with its ETag', async () => {
    const id = await created();
    const r = await save(id, { 'if-none-match': '*' });
    expect(r.statusCode).toBe(200);
    const p = r.json();
    expect(p).toMatchObject({ status: 'saved', saved_as: 'gamma', etag: `"${sha(GAMMA)}"` });
    expect(Number.isNaN(Date.parse(p.decided_at))).toBe(false);
    expect(await ctx.fx.read('templates', 'gamma.yaml')).toBe(GAMMA);
    const t = await ctx.app.inject({ url: `${API}/templates/gamma` });
    expect(t.headers.etag).toBe(p.etag);
    expect((await get(id)).json()).toMatchObject({ status: 'saved', etag: p.etag });
  });

  test('over a template of that name, with If-Match its current ETag', async () => {
    const id = await created('alpha', EDITED);
    const etag = (await ctx.app.inject({ url: `${API}/templates/alpha` })).headers.etag as string;
    const r = await save(id, { 'if-match': etag });
    expect(r.statusCode).toBe(200);
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBe(EDITED);
    expect(r.json().etag).toBe(`"${sha(EDITED)}"`);
  });

  test('a stale If-Match is 412, nothing written, still pending; a later save succeeds', async () => {
    const id = await created('alpha', EDITED);
    const r = await save(id, { 'if-match': `"${sha('something else')}"` });
    expect(r.statusCode).toBe(412);
    expect(r.json().code).toBe('precondition_failed');
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBeNull();
    expect((await get(id)).json()).toMatchObject({ status: 'pending', etag: null, decided_at: null });
    expect(JSON.parse((await ctx.fx.read('proposals', `${id}.json`))!).saving).toBeNull();
    expect((await save(id, { 'if-match': `"${sha(ALPHA)}"` })).statusCode).toBe(200);
  });

  test('without If-Match a save never replaces a template: 412, still pending', async () => {
    const id = await created('alpha', EDITED);
    const r = await save(id);
    expect(r.statusCode).toBe(412);
    expect(r.json().code).toBe('precondition_failed');
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBeNull();
    expect((await get(id)).json().status).toBe('pending');
  });

  test('If-None-Match: * on a name that exists is 412 and still pending', async () => {
    const id = await created('alpha', EDITED);
    const r = await save(id, { 'if-none-match': '*' });
    expect(r.statusCode).toBe(412);
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBeNull();
    expect((await get(id)).json().status).toBe('pending');
  });

  test('an invalid proposal is 422 invalid_template with its problems, nothing written, still pending', async () => {
    const id = await created('gamma', INVALID);
    const r = await save(id);
    expect(r.statusCode).toBe(422);
    expect(r.json().code).toBe('invalid_template');
    expect(r.json().problems.map((p: { code: string }) => p.code)).toContain('model.profile_unknown');
    expect(await ctx.fx.read('templates', 'gamma.yaml')).toBeNull();
    expect((await get(id)).json().status).toBe('pending');
  });

  test('under another name: the header name is rewritten, every other byte kept', async () => {
    const id = await created();
    const r = await save(id, { 'if-none-match': '*' }, { name: 'delta' });
    expect(r.statusCode).toBe(200);
    const want = GAMMA.replace('name: gamma', 'name: delta');
    expect(await ctx.fx.read('templates', 'delta.yaml')).toBe(want);
    expect(await ctx.fx.read('templates', 'gamma.yaml')).toBeNull();
    expect(r.json()).toMatchObject({ status: 'saved', name: 'gamma', saved_as: 'delta', etag: `"${sha(want)}"` });
  });

  test('a name YAML would read as a number is quoted', async () => {
    const id = await created();
    expect((await save(id, {}, { name: '123' })).statusCode).toBe(200);
    expect(await ctx.fx.read('templates', '123.yaml')).toBe(GAMMA.replace('name: gamma', 'name: "123"'));
  });

  test('deciding twice is 409 already_decided, and changes nothing', async () => {
    const id = await created();
    expect((await save(id)).statusCode).toBe(200);
    const before = await ctx.fx.read('proposals', `${id}.json`);
    for (const r of [await save(id), await dismiss(id, 'too late')]) {
      expect(r.statusCode).toBe(409);
      expect(r.json().code).toBe('already_decided');
    }
    expect(await ctx.fx.read('proposals', `${id}.json`)).toBe(before);
  });
});

describe('POST /proposals/:id/dismiss', () => {
  test('dismisses with a note; nothing is saved', async () => {
    const id = await created();
    const r = await dismiss(id, 'use quick-fix instead');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'dismissed', note: 'use quick-fix instead', etag: null, saved_as: null });
    expect(await ctx.fx.read('templates', 'gamma.yaml')).toBeNull();
    expect((await get(id)).json()).toMatchObject({ status: 'dismissed', note: 'use quick-fix instead' });
    expect((await dismiss(id)).json().code).toBe('already_decided');
  });

  test('without a body or a note', async () => {
    const id = await created();
    const r = await ctx.app.inject({ method: 'POST', url: `${API}/proposals/${id}/dismiss` });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'dismissed', note: null });
  });
});

test('the events bus carries proposal.created and proposal.decided {id, status, name, etag, note}', async () => {
  await ctx.app.close();
  const library = await openLibrary({ spawner: testSpawner, root: ctx.fx.root, harnessDir: ctx.fx.harness });
  ctx.app = await buildApp({ library, web: false });
  try {
    const seen: { type: string; data: unknown }[] = [];
    library.events.subscribe((e) => {
      if (e.type.startsWith('proposal.')) seen.push({ type: e.type, data: e.data });
    });
    const a = await created();
    const b = await created();
    const saved = (await save(a, {}, { name: 'delta' })).json();
    await dismiss(b, 'one is enough');
    await save(b); // refused: tells nothing
    expect(seen).toEqual([
      { type: 'proposal.created', data: { id: a, status: 'pending', name: 'gamma', etag: null, note: null } },
      { type: 'proposal.created', data: { id: b, status: 'pending', name: 'gamma', etag: null, note: null } },
      // a decision says who decided: the client address, on a desk with no users
      { type: 'proposal.decided', data: { id: a, status: 'saved', name: 'delta', etag: saved.etag, note: null, edited: false, who: '127.0.0.1' } },
      { type: 'proposal.decided', data: { id: b, status: 'dismissed', name: 'gamma', etag: null, note: 'one is enough', edited: false, who: '127.0.0.1' } },
    ]);
  } finally {
    await ctx.app.close();
    await library.close();
    ctx.app = await ctx.fx.open();
  }
});
