/** Reset and acknowledge (docs/api.md, Settings actions) over a real library on temp folders. */
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { ALPHA, API, openApp } from './http-fixture.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const EDITED = ALPHA.replace('one worker then a gate', 'one worker, edited');
const NEW_SHIPPED = ALPHA.replace('profile: read_only', 'profile: web_research');

const ctx = openApp();

const put = (name: string, source: string) =>
  ctx.app.inject({ method: 'PUT', url: `${API}/templates/${name}`, payload: { source } });
const reset = (name: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url: `${API}/settings/template-reset`, payload: { name }, headers });
const ack = (name: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url: `${API}/settings/template-acknowledge`, payload: { name }, headers });
const visible = async () => (await readdir(ctx.fx.at('templates'))).filter((f) => !f.startsWith('.shipped-base'));

describe('POST /settings/template-reset', () => {
  test('removes the copy and its marker: the shipped bytes load again', async () => {
    await put('alpha', EDITED);
    const r = await reset('alpha');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ name: 'alpha', state: 'shipped', source: ALPHA });
    expect(r.headers.etag).toBe(`"${sha(ALPHA)}"`);
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBeNull();
    expect(await ctx.fx.read('templates', '.alpha.shipped')).toBeNull();
    expect(await visible()).toEqual([]);
  });

  test('honours If-Match: a stale tag is 412 and the copy stays', async () => {
    await put('alpha', EDITED);
    const stale = await reset('alpha', { 'if-match': `"${sha(ALPHA)}"` });
    expect(stale.statusCode).toBe(412);
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBe(EDITED);
    const ok = await reset('alpha', { 'if-match': `"${sha(EDITED)}"` });
    expect(ok.statusCode).toBe(200);
  });

  test('a name that is not shipped is 409 not_shipped, and the custom file stays', async () => {
    const gamma = ALPHA.replaceAll('alpha', 'gamma');
    await put('gamma', gamma);
    const r = await reset('gamma');
    expect(r.statusCode).toBe(409);
    expect(r.json().code).toBe('not_shipped');
    expect(await ctx.fx.read('templates', 'gamma.yaml')).toBe(gamma);
    expect((await reset('nothing')).json().code).toBe('not_shipped');
  });

  test('a read-only name is 403', async () => {
    expect((await reset('ticket-input')).statusCode).toBe(403);
  });

  test('an unknown body key is 400', async () => {
    const r = await ctx.app.inject({ method: 'POST', url: `${API}/settings/template-reset`, payload: { name: 'alpha', force: true } });
    expect(r.statusCode).toBe(400);
    expect(r.json().code).toBe('bad_request');
  });
});

describe('POST /settings/template-acknowledge', () => {
  test('moves the marker to today: shipped_changed_since becomes edited, the copy stays', async () => {
    await put('alpha', EDITED);
    await ctx.fx.ship('alpha', NEW_SHIPPED);
    await ctx.reopen();
    const before = await ctx.app.inject({ url: `${API}/templates/alpha` });
    expect(before.json().state).toBe('shipped_changed_since');
    const r = await ack('alpha', { 'if-match': before.headers.etag as string });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ state: 'edited', source: EDITED });
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBe(EDITED);
    const marker = await ctx.fx.read('templates', '.alpha.shipped');
    expect(marker?.split('\n')[0]).toBe(sha(NEW_SHIPPED));
  });

  test('409 state_conflict unless shipped_changed_since', async () => {
    await put('alpha', EDITED);
    const r = await ack('alpha');
    expect(r.statusCode).toBe(409);
    expect(r.json().code).toBe('state_conflict');
    expect((await ack('beta')).statusCode).toBe(409);
  });
});
