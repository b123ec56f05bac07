/** Template routes over a real library on temp folders: list, read, save, delete, and the states. */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { ALPHA, API, fixture, openApp } from './http-fixture.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const EDITED = ALPHA.replace('one worker then a gate', 'one worker, edited');
const CUSTOM = ALPHA.replaceAll('alpha', 'gamma');

const ctx = openApp();

const get = (name: string) => ctx.app.inject({ url: `${API}/templates/${name}` });
const put = (name: string, source: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'PUT', url: `${API}/templates/${name}`, payload: { source }, headers });

describe('GET /templates', () => {
  test('lists shipped and read-only templates sorted, with the spec fields', async () => {
    const r = await ctx.app.inject({ url: `${API}/templates` });
    expect(r.statusCode).toBe(200);
    const list = r.json().templates;
    expect(list.map((t: { name: string }) => t.name)).toEqual(['alpha', 'beta', 'ticket-input']);
    expect(list[0]).toEqual({
      name: 'alpha',
      purpose: 'one worker then a gate',
      shipped: true,
      read_only: false,
      state: 'shipped',
      edited_outside: false,
      ticket: false,
      writes: false,
      closes_ticket: false,
      base: null,
      valid: true,
      errors: 0,
      warnings: 0,
    });
    expect(list[1]).toMatchObject({ name: 'beta', base: 'alpha' });
    expect(list[2]).toMatchObject({ name: 'ticket-input', read_only: true, state: 'read_only' });
  });

  test('an invalid file in the library is listed with its counts and does not hide the others', async () => {
    await ctx.fx.write('template: [\n', 'templates', 'broken.yaml');
    const list = (await ctx.app.inject({ url: `${API}/templates` })).json().templates;
    const broken = list.find((t: { name: string }) => t.name === 'broken');
    expect(broken).toMatchObject({ state: 'custom', valid: false, purpose: null });
    expect(broken.errors).toBeGreaterThan(0);
    expect(list).toHaveLength(4);
  });
});

describe('GET /templates/:name', () => {
  test('answers the entry, its card and an ETag of the bytes that load', async () => {
    const r = await get('alpha');
    expect(r.statusCode).toBe(200);
    expect(r.headers.etag).toBe(`"${sha(ALPHA)}"`);
    const body = r.json();
    expect(body).toMatchObject({
      name: 'alpha',
      state: 'shipped',
      shipped: true,
      read_only: false,
      edited_outside: false,
      source: ALPHA,
      shipped_source: ALPHA,
      valid: true,
      problems: [],
    });
    expect(body.card.nodes.map((n: { id: string }) => n.id)).toEqual(['work', 'gate']);
    expect(body.card.diff).toBeNull();
  });

  test("a variant's card diffs against its base", async () => {
    const card = (await get('beta')).json().card;
    expect(card.diff.against).toEqual({ name: 'alpha', kind: 'base' });
    expect(card.diff.graph.nodes.added.map((n: { id: string }) => n.id)).toEqual(['review']);
  });

  test('404 not_found for an unknown name', async () => {
    const r = await get('nope');
    expect(r.statusCode).toBe(404);
    expect(r.json().code).toBe('not_found');
  });
});

describe('PUT /templates/:name and the states', () => {
  test('saving the shipped bytes reads same_as_shipped; the copy and marker are on disk', async () => {
    const r = await put('alpha', ALPHA);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ name: 'alpha', state: 'same_as_shipped', edited_outside: false });
    expect(r.headers.etag).toBe(`"${sha(ALPHA)}"`);
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBe(ALPHA);
    expect(await ctx.fx.read('templates', '.alpha.shipped')).toBe(`${sha(ALPHA)}\ncopy ${sha(ALPHA)}\n`);
  });

  test('an edit reads edited, and its card diffs against the shipped version', async () => {
    const r = await put('alpha', EDITED);
    expect(r.statusCode).toBe(200);
    expect(r.json().state).toBe('edited');
    expect(r.headers.etag).toBe(`"${sha(EDITED)}"`);
    expect(r.json().card.diff.against).toEqual({ name: 'alpha', kind: 'shipped' });
    expect((await get('alpha')).json()).toMatchObject({ state: 'edited', source: EDITED, shipped_source: ALPHA });
    // the card built while the save was written is the one a read builds
    expect(r.json().card).toEqual((await get('alpha')).json().card);
  });

  test('a marker from another shipped version reads shipped_changed_since', async () => {
    await put('alpha', EDITED);
    await writeFile(ctx.fx.at('templates', '.alpha.shipped'), `${sha('an older alpha')}\ncopy ${sha(EDITED)}\n`);
    expect((await get('alpha')).json()).toMatchObject({ state: 'shipped_changed_since', edited_outside: false });
  });

  test('a copy with no marker reads edited, never shipped_changed_since', async () => {
    await ctx.fx.write(EDITED, 'templates', 'alpha.yaml');
    expect((await get('alpha')).json().state).toBe('edited');
  });

  test('an unedited copy of an older shipped version reads stale', async () => {
    await put('alpha', ALPHA);
    await ctx.fx.ship('alpha', ALPHA.replace('one worker then a gate', 'the new shipped alpha'));
    await ctx.reopen();
    expect((await get('alpha')).json()).toMatchObject({ state: 'stale', source: ALPHA });
  });

  test('an edited copy whose shipped version moved on reads shipped_changed_since', async () => {
    await put('alpha', EDITED);
    await ctx.fx.ship('alpha', ALPHA.replace('profile: read_only', 'profile: web_research'));
    await ctx.reopen();
    expect((await get('alpha')).json().state).toBe('shipped_changed_since');
  });

  test('a hand edit after a save reads edited_outside', async () => {
    await put('alpha', EDITED);
    await writeFile(ctx.fx.at('templates', 'alpha.yaml'), EDITED.replace('edited', 'by hand'));
    expect((await get('alpha')).json()).toMatchObject({ state: 'edited', edited_outside: true });
  });

  test('a new name saves as custom; its card has no diff', async () => {
    const r = await put('gamma', CUSTOM);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ state: 'custom', shipped: false, shipped_source: null });
    expect(r.json().card.diff).toBeNull();
    expect(await ctx.fx.read('templates', 'gamma.yaml')).toBe(CUSTOM);
    expect(await ctx.fx.read('templates', '.gamma.shipped')).toBeNull();
  });

  test('an invalid save is 422 invalid_template with problems, and nothing is written', async () => {
    const bad = ALPHA.replace(', profile: read_only', '');
    const r = await put('alpha', bad);
    expect(r.statusCode).toBe(422);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = r.json();
    expect(body.code).toBe('invalid_template');
    expect(body.problems).toContainEqual(expect.objectContaining({ code: 'model.profile_missing', line: 8 }));
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBeNull();
    expect(await ctx.fx.read('templates', '.alpha.shipped')).toBeNull();
  });

  test('a header name that is not the URL name is 422 with name.mismatch', async () => {
    const r = await put('delta', ALPHA);
    expect(r.statusCode).toBe(422);
    expect(r.json().problems).toContainEqual(expect.objectContaining({ code: 'name.mismatch', path: '/template/name' }));
    expect(await ctx.fx.read('templates', 'delta.yaml')).toBeNull();
  });

  test('a read-only name is 403 read_only', async () => {
    const r = await put('ticket-input', ALPHA.replaceAll('alpha', 'ticket-input'));
    expect(r.statusCode).toBe(403);
    expect(r.json().code).toBe('read_only');
  });

  test('a stale If-Match is 412 and changes nothing; a current one saves', async () => {
    const stale = await put('alpha', EDITED, { 'if-match': `"${sha('something else')}"` });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().code).toBe('precondition_failed');
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBeNull();
    const ok = await put('alpha', EDITED, { 'if-match': `"${sha(ALPHA)}"` });
    expect(ok.statusCode).toBe(200);
  });

  test('20 parallel saves on one ETag: exactly one 200, the rest 412', async () => {
    const etag = (await get('alpha')).headers.etag as string;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => put('alpha', ALPHA.replace('one worker then a gate', `save ${i}`), { 'if-match': etag })),
    );
    const codes = answers.map((a) => a.statusCode).sort();
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 412)).toHaveLength(19);
    const winner = answers.find((a) => a.statusCode === 200)!;
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBe(winner.json().source);
  });
});

describe('create-only saves: If-None-Match: *', () => {
  test('a new name is created; a second create of it is 412 and the first bytes stay', async () => {
    const first = await put('gamma', CUSTOM, { 'if-none-match': '*' });
    expect(first.statusCode).toBe(200);
    expect(first.json().state).toBe('custom');
    const second = await put('gamma', CUSTOM.replace('one worker then a gate', 'another window'), { 'if-none-match': '*' });
    expect(second.statusCode).toBe(412);
    expect(second.json().code).toBe('precondition_failed');
    expect(await ctx.fx.read('templates', 'gamma.yaml')).toBe(CUSTOM);
  });

  test('two windows creating one name at once: exactly one 200, the other 412', async () => {
    const answers = await Promise.all(
      [1, 2].map((i) => put('gamma', CUSTOM.replace('one worker then a gate', `window ${i}`), { 'if-none-match': '*' })),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 412]);
    const winner = answers.find((a) => a.statusCode === 200)!;
    expect(await ctx.fx.read('templates', 'gamma.yaml')).toBe(winner.json().source);
  });

  test('a shipped name exists (its GET answers 200): 412 with no copy written; without the header it saves', async () => {
    const r = await put('alpha', EDITED, { 'if-none-match': '*' });
    expect(r.statusCode).toBe(412);
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBeNull();
    expect((await put('alpha', EDITED)).statusCode).toBe(200);
  });

  test('an ETag list: 412 when the current one is among them, else the save goes on', async () => {
    const etag = (await get('alpha')).headers.etag as string;
    expect((await put('alpha', EDITED, { 'if-none-match': `"${sha('other')}", ${etag}` })).statusCode).toBe(412);
    expect((await put('alpha', EDITED, { 'if-none-match': `"${sha('other')}"` })).statusCode).toBe(200);
  });
});

describe('DELETE /templates/:name', () => {
  test('a custom template is deleted: 204 and the file is gone', async () => {
    await put('gamma', CUSTOM);
    const r = await ctx.app.inject({ method: 'DELETE', url: `${API}/templates/gamma` });
    expect(r.statusCode).toBe(204);
    expect(r.body).toBe('');
    expect(await ctx.fx.read('templates', 'gamma.yaml')).toBeNull();
    expect((await get('gamma')).statusCode).toBe(404);
  });

  test('a shipped name is 409 not_custom and its copy stays', async () => {
    await put('alpha', EDITED);
    const r = await ctx.app.inject({ method: 'DELETE', url: `${API}/templates/alpha` });
    expect(r.statusCode).toBe(409);
    expect(r.json().code).toBe('not_custom');
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBe(EDITED);
  });

  test('an unknown name is 404', async () => {
    const r = await ctx.app.inject({ method: 'DELETE', url: `${API}/templates/nope` });
    expect(r.statusCode).toBe(404);
  });
});

describe('no library root', () => {
  test('reads work; every write is 409 no_library_root', async () => {
    const bare = await fixture({ root: false });
    const a = await bare.open();
    try {
      expect((await a.inject({ url: `${API}/templates/alpha` })).statusCode).toBe(200);
      const r = await a.inject({ method: 'PUT', url: `${API}/templates/alpha`, payload: { source: EDITED } });
      expect(r.statusCode).toBe(409);
      expect(r.json().code).toBe('no_library_root');
      const h = (await a.inject({ url: `${API}/status` })).json();
      expect(h).toEqual({ ok: true, templates: 3, roles: 2, library_root: null });
    } finally {
      await a.close();
      await bare.cleanup();
    }
  });
});
