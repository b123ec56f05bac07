/** The launch draft routes' waits (`GET /launches/{id}?wait=N`): answered by the decision, bounded, at the stop. The rest is http-launches.test.ts. */
import { describe, expect, test } from 'vitest';
import { API, app, approve, close, dismiss, drafted, get, GREET, open, useLaunchesRoot, withdraw } from './launches-fixture.js';

useLaunchesRoot();

describe('?wait=N', () => {
  test('a wait answers as soon as the draft is approved, with the decision', async () => {
    const id = await drafted();
    const t = Date.now();
    const waiting = get(id, '30');
    await new Promise((r) => setTimeout(r, 100));
    expect((await approve(id)).statusCode).toBe(200);
    const r = await waiting;
    expect(r.json()).toMatchObject({ id, status: 'approved' });
    expect(Date.now() - t).toBeLessThan(10_000);
  });

  test('a wait answers on a dismissal, note and all; several waiters on one draft all hear it', async () => {
    const id = await drafted();
    const waiting = [get(id, '30'), get(id, '30'), get(id, '30')];
    await new Promise((r) => setTimeout(r, 100));
    await dismiss(id, { note: 'no' });
    for (const r of await Promise.all(waiting)) expect(r.json()).toMatchObject({ status: 'dismissed', decision_note: 'no' });
  });

  test('past the waiters bound (proposals and drafts together) a wait answers at once with the record as it is', async () => {
    await close();
    await open({}, { maxWaiters: 2 });
    const id = await drafted();
    const p = (await app.inject({ method: 'POST', url: `${API}/proposals`, payload: { name: 'gamma', purpose: 'p', source: GREET.replace('name: greet', 'name: gamma') } })).json();
    const waiting = [get(id, '30'), app.inject({ url: `${API}/proposals/${p.id}?wait=30` })];
    await new Promise((r) => setTimeout(r, 100));
    // both held: a third, on either, is not held
    const t = Date.now();
    expect((await get(id, '30')).json()).toMatchObject({ id, status: 'pending' });
    expect((await app.inject({ url: `${API}/proposals/${p.id}?wait=30` })).json()).toMatchObject({ id: p.id, status: 'pending' });
    expect(Date.now() - t).toBeLessThan(5_000);
    // the held ones still hear their decisions, and then there is room again
    await approve(id);
    await app.inject({ method: 'POST', url: `${API}/proposals/${p.id}/dismiss`, payload: {} });
    const [l, pr] = await Promise.all(waiting);
    expect(l!.json().status).toBe('approved');
    expect(pr!.json().status).toBe('dismissed');
    // a new wait is held again: it answers with the decision made after it began
    const other = await drafted();
    const held = get(other, '30');
    await new Promise((r) => setTimeout(r, 100));
    await approve(other);
    expect((await held).json().status).toBe('approved');
  });

  test('a decided draft answers at once; a pending one after N seconds, still pending', async () => {
    const id = await drafted();
    await withdraw(id);
    let t = Date.now();
    expect((await get(id, '30')).json().status).toBe('withdrawn');
    expect(Date.now() - t).toBeLessThan(5_000);
    const other = await drafted();
    t = Date.now();
    expect((await get(other, '1')).json().status).toBe('pending');
    expect(Date.now() - t).toBeGreaterThanOrEqual(950);
  });

  test('forty conductors waiting on forty drafts: deciding each answers its own waiter, with its decision', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await drafted({ who: `W-${i}` }));
    const waiting = ids.map((id) => get(id, '55'));
    await new Promise((r) => setTimeout(r, 200));
    for (const [i, id] of ids.entries()) expect((i % 2 ? await approve(id) : await withdraw(id)).statusCode).toBe(200);
    const answers = await Promise.all(waiting);
    expect(answers.map((r) => r.json().status)).toEqual(ids.map((_, i) => (i % 2 ? 'approved' : 'withdrawn')));
  });

  test('N is whole seconds from 1 to 55', async () => {
    const id = await drafted();
    for (const bad of ['0', '56', '60', '1.5', 'abc', '-1', '']) expect((await get(id, bad)).statusCode, bad).toBe(400);
    expect((await get('000000000-00000000000000000000', '1')).statusCode).toBe(404);
  });

  test('a waiter still open when the service stops gets the pending record', async () => {
    const id = await drafted();
    const waiting = get(id, '55');
    await new Promise((r) => setTimeout(r, 100));
    const t = Date.now();
    await app.close();
    const r = await waiting;
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ id, status: 'pending' });
    expect(Date.now() - t).toBeLessThan(10_000);
  });
});
