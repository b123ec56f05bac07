/**
 * GET /api/desk/events (docs/api.md, Events) on a real listening app: inject
 * cannot hold a stream open, so these read it with http.get.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type App, type AppOptions, buildApp } from '../src/app.js';
import { openLibrary } from '../src/library/library.js';
import type { Library } from '../src/library/types.js';
import { ALPHA, API, type Fixture, fixture } from './http-fixture.js';
import { call, connect, data, type SseClient } from './events-client.js';
import { testSpawner } from './test-spawner.js';

let fx: Fixture;
let app: App | null = null;
let lib: Library | null = null;
let base = '';
const clients: SseClient[] = [];

async function start(opts: Partial<AppOptions> = {}): Promise<App> {
  // the library builds its watcher (LibraryOptions.watch): a relist every 50 ms
  lib = await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness, watch: { relistMs: 50 } });
  app = await buildApp({ library: lib, web: false, ...opts });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return app;
}

async function listen(headers: Record<string, string> = {}, path = `${API}/events`): Promise<SseClient> {
  const c = await connect(base, path, headers);
  clients.push(c);
  return c;
}

/** a save over the network, as another window would send it */
const put = (name: string, source: string) => call(base, 'PUT', `${API}/templates/${name}`, { source });

beforeEach(async () => {
  fx = await fixture();
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await app?.close();
  await lib?.close();
  app = null;
  lib = null;
  await fx.cleanup();
});

const CUSTOM = ALPHA.replace('name: alpha', 'name: gamma');

describe('GET /events', () => {
  test('a save through the API publishes template.changed with the new ETag', async () => {
    await start();
    const c = await listen();
    expect(c.status).toBe(200);
    expect(c.res.headers['content-type']).toMatch(/^text\/event-stream/);
    const ready = await c.next((f) => f.event === 'ready');
    expect(ready.id).toMatch(/^[0-9a-z]+\.0$/);
    expect(c.frames[0]!.retry).toBe('3000');
    const r = await put('gamma', CUSTOM);
    expect(r.status).toBe(200);
    // generous: the event is written in the save's own tick; 2 s only covers a loaded machine
    const f = await c.next((x) => x.event === 'template.changed', 2000);
    // `who`: the client address, on a desk with no users (docs/api.md, Events)
    expect(data(f)).toEqual({ name: 'gamma', state: 'custom', etag: r.etag, who: '127.0.0.1' });
    expect(f.id).toBe(`${ready.id!.split('.')[0]}.1`);
  });

  test('a hand edit on disk is found by the watcher', async () => {
    await start();
    const c = await listen();
    await c.next((f) => f.event === 'ready');
    // the watcher's first look learns the library as it is; a change after it is news
    await until(() => app!.eventStreams.stats().looks >= 1);
    // a hand edit is not atomic: a look may catch it half written and tell that too, so wait for the whole file's ETag
    await fx.write(CUSTOM, 'templates', 'gamma.yaml');
    const now = await call(base, 'GET', `${API}/templates/gamma`);
    const f = await c.next((x) => x.event === 'template.changed' && data(x).etag === now.etag);
    expect(data(f)).toEqual({ name: 'gamma', state: 'custom', etag: now.etag });
    // roles too: a hand-made role folder
    await fx.write('# Triager\n\nSorts.\n', 'roles', 'triager', 'role.md');
    const role = await call(base, 'GET', `${API}/roles/triager`);
    const r = await c.next((x) => x.event === 'role.changed' && data(x).etag === role.etag);
    expect(data(r)).toEqual({ name: 'triager', state: 'custom', etag: role.etag });
  });

  test('a hand edit made while no stream was open is told to the next one', async () => {
    await start();
    const first = await listen();
    await first.next((f) => f.event === 'ready');
    await until(() => app!.eventStreams.stats().looks >= 1);
    first.close();
    await until(() => app!.eventStreams.stats().subscribers === 0);
    const looks = app!.eventStreams.stats().looks;
    await fx.write(CUSTOM, 'templates', 'gamma.yaml');
    const next = await listen();
    const f = await next.next((x) => x.event === 'template.changed' && data(x).name === 'gamma');
    expect(data(f).state).toBe('custom');
    expect(app!.eventStreams.stats().looks).toBeGreaterThan(looks);
  });

  test('Last-Event-ID replays what was missed; an old or foreign id gets resync', async () => {
    await start();
    const first = await listen();
    const ready = await first.next((f) => f.event === 'ready');
    first.close();
    await put('gamma', CUSTOM);
    await put('delta', ALPHA.replace('name: alpha', 'name: delta'));
    const again = await listen({ 'last-event-id': ready.id! });
    await again.next((f) => f.event === 'ready');
    const names = again.frames.filter((f) => f.event === 'template.changed').map((f) => data(f).name);
    expect(names).toEqual(['gamma', 'delta']);
    expect(again.frames.some((f) => f.event === 'resync')).toBe(false);

    const foreign = await listen({ 'last-event-id': 'zzzz.1' });
    const rs = await foreign.next((f) => f.event === 'resync');
    // the resync carries the current id, so the next reconnect resumes instead of resyncing again
    expect(rs.id).toBe(`${ready.id!.split('.')[0]}.2`);
  });

  test('an id older than the ring keeps gets resync', async () => {
    await start();
    const c = await listen();
    const ready = await c.next((f) => f.event === 'ready');
    c.close();
    // the bus keeps the last 512 events
    for (let i = 0; i < 600; i++) lib!.events.publish('proposal.created', { id: `p${i}`, status: 'pending', name: 'gamma', etag: null, note: null });
    const old = await listen({ 'last-event-id': ready.id! });
    const rs = await old.next((f) => f.event === 'resync');
    expect(rs.id).toBe(`${ready.id!.split('.')[0]}.600`);
    expect(old.frames.some((f) => f.event === 'proposal.created')).toBe(false);
  });

  test('HEAD opens no stream', async () => {
    await start();
    const r = await call(base, 'HEAD', `${API}/events`);
    expect(r.status).toBe(404);
    expect(app!.eventStreams.stats().subscribers).toBe(0);
  });

  test('a heartbeat comment comes at the configured interval', async () => {
    await start({ events: { heartbeatMs: 30 } });
    const c = await listen();
    const ping = await c.next((f) => f.comments.includes('ping'));
    expect(ping.event).toBeUndefined();
  });

  test('the stream past the cap is refused with 503 too_many_subscribers', async () => {
    await start({ events: { maxSubscribers: 2 } });
    await listen();
    const second = await listen();
    await second.next((f) => f.event === 'ready');
    const third = await listen();
    expect(third.status).toBe(503);
    expect(third.res.headers['retry-after']).toBe('10');
    await third.ended;
    expect(JSON.parse(third.text()).code).toBe('too_many_subscribers');
    // the refusal closes its socket rather than keeping it alive for the next request
    expect(third.res.headers.connection).toBe('close');
    const socket = third.req.socket!;
    if (!socket.destroyed) await new Promise((r) => socket.once('close', r));
    // a closed stream frees its place
    second.close();
    await until(() => app!.eventStreams.stats().subscribers === 1);
    expect((await listen()).status).toBe(200);
  });

  test('a client that stops reading is dropped; what waits for it stays bounded', async () => {
    const max = 256 * 1024;
    await start({ events: { maxQueuedBytes: max } });
    const c = await listen();
    await c.next((f) => f.event === 'ready');
    c.res.pause();
    const note = 'x'.repeat(64 * 1024);
    let peak = 0;
    let sent = 0;
    // the kernel's socket buffers take some megabytes first; 64 MiB is far past them
    while (app!.eventStreams.stats().subscribers > 0 && sent < 1024) {
      lib!.events.publish('proposal.decided', { id: `p${sent}`, status: 'dismissed', name: 'gamma', etag: null, note });
      sent++;
      peak = Math.max(peak, app!.eventStreams.stats().queuedBytes);
      if (sent % 16 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(app!.eventStreams.stats()).toMatchObject({ subscribers: 0, queuedBytes: 0, dropped: 1 });
    // the queue's bound, plus what the response held when write() first said no (a frame past its 16 KiB mark)
    expect(peak).toBeLessThanOrEqual(max + 2 * (note.length + 200) + 16 * 1024);
  });

  test('a client that stops reading for a while and then reads again gets every event, in order', async () => {
    await start({ events: { maxQueuedBytes: 64 * 1024 * 1024 } });
    const c = await listen();
    await c.next((f) => f.event === 'ready');
    c.res.pause();
    const note = 'y'.repeat(64 * 1024);
    let queuedPeak = 0;
    for (let i = 0; i < 300; i++) {
      lib!.events.publish('proposal.decided', { id: `p${i}`, status: 'dismissed', name: 'gamma', etag: null, note });
      queuedPeak = Math.max(queuedPeak, app!.eventStreams.stats().queuedBytes);
      if (i % 16 === 0) await new Promise((r) => setImmediate(r));
    }
    // 19 MiB is past what the kernel's buffers take, so the stream's own queue was used
    expect(queuedPeak).toBeGreaterThan(1024 * 1024);
    c.res.resume();
    await c.next((f) => f.event === 'proposal.decided' && data(f).id === 'p299', 30_000);
    const ids = c.frames.filter((f) => f.event === 'proposal.decided').map((f) => data(f).id);
    expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => `p${i}`));
    expect(app!.eventStreams.stats()).toMatchObject({ subscribers: 1, dropped: 0 });
  });

  test('app.close() resolves with a stream open, and the stream ends', async () => {
    await start();
    const c = await listen();
    await c.next((f) => f.event === 'ready');
    const ended = new Promise<void>((ok) => c.res.on('close', () => ok()));
    await app!.close();
    app = null;
    await ended;
  });
});

describe('GET /events with a token', () => {
  test('401 without it; the query token and the bearer header both open the stream', async () => {
    await start({ token: 'sesame' });
    const none = await listen();
    expect(none.status).toBe(401);
    const wrong = await listen({}, `${API}/events?token=nope`);
    expect(wrong.status).toBe(401);
    const q = await listen({}, `${API}/events?token=sesame`);
    expect(q.status).toBe(200);
    const h = await listen({ authorization: 'Bearer sesame' });
    expect(h.status).toBe(200);
    // only this route takes the query token
    expect((await call(base, 'GET', `${API}/templates?token=sesame`)).status).toBe(401);
    expect((await call(base, 'GET', `${API}/templates`, undefined, { authorization: 'Bearer sesame' })).status).toBe(200);
  });
});

describe('the request log', () => {
  test('never writes a query token down', async () => {
    const lines: string[] = [];
    await start({ token: 'sesame', logger: { level: 'info', stream: { write: (l: string) => void lines.push(l) } } });
    const ok = await listen({}, `${API}/events?token=sesame`);
    await ok.next((f) => f.event === 'ready');
    expect((await call(base, 'GET', `${API}/templates?token=sesame&x=1`)).status).toBe(401);
    await until(() => lines.some((l) => l.includes('"status":401')));
    expect(lines.join('')).not.toContain('sesame');
    expect(lines.join('')).toContain('token=[redacted]');
  });
});

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
}
