/** `GET /proposals/:id?wait=N` (docs/api.md, Proposals): the wait answers on the save or the dismissal, at once when decided, after N seconds when not, and when the service stops. */
import { describe, expect, test } from 'vitest';
import { ALPHA, API, openApp } from './http-fixture.js';

const GAMMA = ALPHA.replaceAll('alpha', 'gamma');
const ctx = openApp();

async function created(): Promise<string> {
  const r = await ctx.app.inject({ method: 'POST', url: `${API}/proposals`, payload: { name: 'gamma', purpose: 'a worker and a gate', source: GAMMA } });
  expect(r.statusCode).toBe(201);
  return r.json().id;
}
const get = (id: string, wait: string) => ctx.app.inject({ url: `${API}/proposals/${id}?wait=${wait}` });
const tick = () => new Promise((r) => setTimeout(r, 100));

describe('GET /proposals/:id?wait=N', () => {
  test('answers as soon as the proposal is saved', async () => {
    const id = await created();
    const t = Date.now();
    const waiting = get(id, '30');
    await tick();
    expect((await ctx.app.inject({ method: 'POST', url: `${API}/proposals/${id}/save` })).statusCode).toBe(200);
    expect((await waiting).json()).toMatchObject({ id, status: 'saved', saved_as: 'gamma' });
    expect(Date.now() - t).toBeLessThan(10_000);
  });

  test('answers as soon as the proposal is dismissed, with the note', async () => {
    const id = await created();
    const waiting = get(id, '30');
    await tick();
    await ctx.app.inject({ method: 'POST', url: `${API}/proposals/${id}/dismiss`, payload: { note: 'one is enough' } });
    expect((await waiting).json()).toMatchObject({ status: 'dismissed', note: 'one is enough' });
  });

  test('a decided proposal answers at once; a pending one after N seconds, still pending', async () => {
    const id = await created();
    await ctx.app.inject({ method: 'POST', url: `${API}/proposals/${id}/dismiss`, payload: {} });
    let t = Date.now();
    expect((await get(id, '30')).json().status).toBe('dismissed');
    expect(Date.now() - t).toBeLessThan(5_000);
    const other = await created();
    t = Date.now();
    expect((await get(other, '1')).json().status).toBe('pending');
    expect(Date.now() - t).toBeGreaterThanOrEqual(950);
  });

  test('N is whole seconds from 1 to 55; an unknown id is 404 at once', async () => {
    const id = await created();
    for (const bad of ['0', '56', '2.5', 'x']) expect((await get(id, bad)).statusCode, bad).toBe(400);
    expect((await get('000000000-00000000000000000000', '30')).statusCode).toBe(404);
  });

  test('a waiter still open when the service stops gets the pending record', async () => {
    const id = await created();
    const waiting = get(id, '55');
    await tick();
    await ctx.app.close();
    expect((await waiting).json()).toMatchObject({ id, status: 'pending' });
    // the fixture closes it again at the end: a fresh one to close
    ctx.app = await ctx.fx.open();
  });
});
