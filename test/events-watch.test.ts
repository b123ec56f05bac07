/**
 * The watcher behind the events stream (src/library/events/watch.ts,
 * docs/api.md, Events): folder watches find changes made without the
 * service, a slow relist is the safety net, and every watch is closed when
 * the last stream leaves. Most tests drive the watcher on the library API;
 * the handle counts go through a listening app and a real stream.
 */
import type { AddressInfo } from 'node:net';
import { mkdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type App, buildApp } from '../src/app.js';
import type { DeskEvent } from '../src/library/events/bus.js';
import { touchedBy } from '../src/library/events/folders.js';
import { LibraryWatcher, type WatchOptions } from '../src/library/events/watch.js';
import { openLibrary } from '../src/library/library.js';
import type { Library } from '../src/library/types.js';
import { connect, type SseClient } from './events-client.js';
import { ALPHA, API, type Fixture, fixture } from './http-fixture.js';
import { testSpawner } from './test-spawner.js';

let fx: Fixture;
let lib: Library;
let watcher: LibraryWatcher | null = null;
let app: App | null = null;
let events: DeskEvent[];
let looks: { relist: number; names: number };
let errors: unknown[];
const clients: SseClient[] = [];

beforeEach(async () => {
  fx = await fixture();
  lib = await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness });
  events = [];
  looks = { relist: 0, names: 0 };
  errors = [];
  lib.events.subscribe((e) => events.push(e));
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  watcher?.dispose();
  watcher = null;
  await app?.close();
  app = null;
  await lib.close();
  await fx.cleanup();
});

const named = (name: string) => ALPHA.replace('name: alpha', `name: ${name}`);
type EntryEvent = Extract<DeskEvent, { type: 'template.changed' | 'role.changed' }>;
const changed = (name: string) => events.filter((e): e is EntryEvent => (e.type === 'template.changed' || e.type === 'role.changed') && e.data.name === name);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await sleep(10);
  expect(cond()).toBe(true);
}

/** A started watcher whose first relist has learned the library. The relist is an hour off unless said: what is found, the watches found. */
async function watching(opts: WatchOptions = {}): Promise<LibraryWatcher> {
  watcher = new LibraryWatcher(lib, lib.events, {
    relistMs: 3_600_000,
    ...opts,
    onLook: (what) => void looks[what]++,
    onError: (e) => void errors.push(e),
  });
  const before = looks.relist;
  watcher.start();
  await until(() => looks.relist > before);
  return watcher;
}

/**
 * Time for a burst to settle (75 ms by default) and be looked at, three
 * times over: what has not been announced by then is not going to be. Only
 * "nothing more came" rests on it; every awaited event is waited for by
 * until(), so a slow machine can hide an extra event from a test but never
 * fail a right one.
 */
const quiet = () => sleep(250);

const templateNow = async (name: string) => {
  const t = await lib.getTemplate(name);
  return { name, state: t?.state ?? null, etag: t?.etag ?? null };
};
const roleNow = async (name: string) => {
  const r = await lib.getRole(name);
  return { name, state: r?.state ?? null, etag: r?.etag ?? null };
};

describe('touchedBy: the name a file event is about', () => {
  test('template and role files and intents; nothing else', () => {
    expect(touchedBy('templates/gamma.yaml')).toEqual({ kind: 'template', name: 'gamma' });
    expect(touchedBy('templates/.alpha.shipped')).toEqual({ kind: 'template', name: 'alpha' });
    expect(touchedBy('templates/.alpha.intent')).toEqual({ kind: 'template', name: 'alpha' });
    expect(touchedBy('roles/triager/role.md')).toEqual({ kind: 'role', name: 'triager' });
    expect(touchedBy('roles/triager/kit.json')).toEqual({ kind: 'role', name: 'triager' });
    expect(touchedBy('roles/.triager.intent')).toEqual({ kind: 'role', name: 'triager' });
    for (const p of ['templates/.tmp-gamma.yaml-0a1b2c', 'templates/notes.yml', 'templates/Bad.yaml', 'roles/triager/notes.md', 'templates/.shipped-base/x.yaml', 'README.md']) {
      expect(touchedBy(p)).toBeNull();
    }
  });
});

describe('the folder watches', () => {
  test('a hand edit of a template file is one event, found without a relist', async () => {
    await mkdir(fx.at('templates'), { recursive: true });
    await watching();
    // a plain write: truncate, then the bytes — several file events, one burst
    await writeFile(fx.at('templates', 'gamma.yaml'), named('gamma'));
    const want = await templateNow('gamma');
    expect(want.state).toBe('custom');
    await until(() => changed('gamma').length > 0);
    await quiet();
    expect(changed('gamma').map((e) => e.data)).toEqual([want]);
    // a shipped template edited by hand
    await writeFile(fx.at('templates', 'alpha.yaml'), ALPHA.replace('one worker', 'a worker'));
    const alpha = await templateNow('alpha');
    await until(() => changed('alpha').length > 0);
    await quiet();
    expect(changed('alpha').map((e) => e.data)).toEqual([alpha]);
    expect(alpha.state).not.toBe('shipped');
    expect(looks.relist).toBe(1);
    expect(errors).toEqual([]);
  });

  test('a burst of writes to one file is coalesced into one event, carrying the last bytes', async () => {
    await mkdir(fx.at('templates'), { recursive: true });
    // five writes in a row take a few ms: 150 ms of quiet ends the burst after the last
    await watching({ settleMs: 150 });
    for (let i = 0; i < 5; i++) await writeFile(fx.at('templates', 'gamma.yaml'), named('gamma').replace('one worker', `worker ${i}`));
    const want = await templateNow('gamma');
    await until(() => changed('gamma').length > 0);
    // twice the burst's settle: a second event for the same burst would have come by then
    await sleep(300);
    expect(changed('gamma').map((e) => e.data)).toEqual([want]);
  });

  test('a folder that did not exist when the watch opened is watched once it appears', async () => {
    // a fresh root has neither templates/ nor roles/: the root's own watch sees them come
    await watching();
    await fx.write(named('gamma'), 'templates', 'gamma.yaml');
    await fx.write('# Triager\n\nSorts.\n', 'roles', 'triager', 'role.md');
    const gamma = await templateNow('gamma');
    const triager = await roleNow('triager');
    await until(() => changed('gamma').some((e) => e.data.etag === gamma.etag) && changed('triager').some((e) => e.data.etag === triager.etag));
    expect(triager.state).toBe('custom');
    expect(watcher!.watches).toBe(4); // the root, templates/, roles/, roles/triager/
  });

  test('a role folder made after the stream opened, then a file written in it, shows', async () => {
    await mkdir(fx.at('roles'), { recursive: true });
    const w = await watching();
    expect(w.watches).toBe(2); // the root and roles/: there is no templates/
    await mkdir(fx.at('roles', 'triager'));
    // the folder alone loads as a custom role (with no role.md): told, and the folder watched from now on
    await until(() => changed('triager').length > 0 && w.watches === 3);
    await quiet();
    const count = changed('triager').length;
    await writeFile(fx.at('roles', 'triager', 'role.md'), '# Triager\n\nSorts.\n');
    const want = await roleNow('triager');
    await until(() => changed('triager').length > count);
    await quiet();
    expect(changed('triager').slice(count).map((e) => e.data)).toEqual([want]);
    // a kit added beside it: found by the role folder's own watch
    await writeFile(fx.at('roles', 'triager', 'kit.json'), '{"tools":["shell.run"]}\n');
    const withKit = await roleNow('triager');
    expect(withKit.etag).not.toBe(want.etag);
    await until(() => changed('triager').at(-1)?.data.etag === withKit.etag);
    expect(looks.relist).toBe(1);
  });

  test('a deleted file shows with null state; a removed role folder too, and its watch is closed', async () => {
    await fx.write(named('gamma'), 'templates', 'gamma.yaml');
    await fx.write('# Triager\n\nSorts.\n', 'roles', 'triager', 'role.md');
    const w = await watching();
    expect(w.watches).toBe(4);
    await unlink(fx.at('templates', 'gamma.yaml'));
    await until(() => changed('gamma').length > 0);
    await rm(fx.at('roles', 'triager'), { recursive: true });
    await until(() => changed('triager').length > 0 && w.watches === 3);
    await quiet();
    expect(changed('gamma').map((e) => e.data)).toEqual([{ name: 'gamma', state: null, etag: null }]);
    expect(changed('triager').map((e) => e.data)).toEqual([{ name: 'triager', state: null, etag: null }]);
    // an operator copy of a shipped template removed: the shipped one loads again
    const shipped = await templateNow('alpha');
    await fx.write(ALPHA.replace('one worker', 'a worker'), 'templates', 'alpha.yaml');
    await until(() => changed('alpha').length === 1);
    await unlink(fx.at('templates', 'alpha.yaml'));
    await until(() => changed('alpha').length === 2);
    expect(changed('alpha')[1]!.data).toEqual(shipped);
    expect(shipped.state).toBe('shipped');
  });

  test('a file renamed into the folder from elsewhere shows (an editor saving by rename)', async () => {
    await mkdir(fx.at('templates'), { recursive: true });
    await watching();
    await writeFile(fx.at('gamma.yaml.new'), named('gamma'));
    await rename(fx.at('gamma.yaml.new'), fx.at('templates', 'gamma.yaml'));
    const want = await templateNow('gamma');
    await until(() => changed('gamma').length > 0);
    expect(changed('gamma').map((e) => e.data)).toEqual([want]);
  });

  test('a write through the service is announced once, by the write: the watcher adds nothing', async () => {
    await mkdir(fx.at('templates'), { recursive: true });
    await watching();
    const saved = await lib.saveTemplate('gamma', named('gamma'));
    const alpha = await lib.saveTemplate('alpha', ALPHA.replace('one worker', 'a worker'));
    const role = await lib.saveRole('triager', '# Triager\n\nSorts.\n', { tools: ['shell.run'] });
    await quiet();
    await lib.resetTemplate('alpha');
    await lib.deleteTemplate('gamma');
    await lib.deleteRole('triager');
    await quiet();
    expect(changed('gamma').map((e) => e.data)).toEqual([
      { name: 'gamma', state: 'custom', etag: saved.etag },
      { name: 'gamma', state: null, etag: null },
    ]);
    expect(changed('alpha').map((e) => e.data.state)).toEqual([alpha.state, 'shipped']);
    expect(changed('triager').map((e) => e.data)).toEqual([
      { name: 'triager', state: 'custom', etag: role.etag },
      { name: 'triager', state: null, etag: null },
    ]);
    // the files' events were looked at, and found nothing new
    expect(looks.names).toBeGreaterThan(0);
  });

  test('more names in one burst than are looked at one by one: one relist tells each', async () => {
    await mkdir(fx.at('templates'), { recursive: true });
    await watching({ settleMs: 300 });
    const names = Array.from({ length: 50 }, (_, i) => `bulk-${i}`);
    for (const n of names) await writeFile(fx.at('templates', `${n}.yaml`), named(n));
    await until(() => names.every((n) => changed(n).length > 0));
    await quiet();
    for (const n of names) expect(changed(n).map((e) => e.data)).toEqual([await templateNow(n)]);
    expect(looks.relist).toBeGreaterThanOrEqual(2);
  });
});

describe('while no stream is open', () => {
  test('what changed is told once by the next start, as it loads then: no state in between, nothing for what came back, nothing the service announced', async () => {
    await fx.write(named('gamma'), 'templates', 'gamma.yaml');
    await fx.write(named('delta'), 'templates', 'delta.yaml');
    const w = await watching();
    w.stop();
    expect(w.watches).toBe(0);
    await fx.write(named('gamma').replace('one worker', 'first'), 'templates', 'gamma.yaml');
    await fx.write(named('gamma').replace('one worker', 'second'), 'templates', 'gamma.yaml');
    // changed and changed back: nothing to tell
    await fx.write(named('delta').replace('one worker', 'for a moment'), 'templates', 'delta.yaml');
    await fx.write(named('delta'), 'templates', 'delta.yaml');
    // the service announces its own write as it lands
    await lib.saveTemplate('epsilon', named('epsilon'));
    await quiet();
    expect(changed('gamma')).toEqual([]);
    const before = events.length;
    const relists = looks.relist;
    w.start();
    await until(() => looks.relist > relists);
    await quiet();
    expect(events.slice(before).map((e) => e.data)).toEqual([await templateNow('gamma')]);
  });
});

describe('the safety net', () => {
  test('a relist finds a change no watch reported', async () => {
    await mkdir(fx.at('templates'), { recursive: true });
    const w = await watching({ watch: false, relistMs: 150 });
    expect(w.watches).toBe(0);
    // written whole and renamed in: a relist on a loaded machine may otherwise see the file while it is still empty
    await writeFile(fx.at('templates', '.tmp-gamma'), named('gamma'));
    await rename(fx.at('templates', '.tmp-gamma'), fx.at('templates', 'gamma.yaml'));
    const want = await templateNow('gamma');
    await until(() => changed('gamma').length > 0);
    expect(changed('gamma').map((e) => e.data)).toEqual([want]);
    expect(looks.names).toBe(0);
    expect(looks.relist).toBeGreaterThan(1);
  });
});

/** FSEventWrap: the handle behind each fs.watch; an unclosed one is a leak. */
const fsWatchHandles = () => process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;

describe('through the events stream', () => {
  let base = '';
  async function listen(): Promise<SseClient> {
    const c = await connect(base, `${API}/events`);
    clients.push(c);
    await c.next((f) => f.event === 'ready');
    return c;
  }

  beforeEach(async () => {
    await fx.write('# Triager\n\nSorts.\n', 'roles', 'triager', 'role.md');
    await mkdir(fx.at('templates'), { recursive: true });
    app = await buildApp({ library: lib, web: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  test('watches open with the first stream and all close when the last one leaves', async () => {
    const idle = fsWatchHandles();
    const first = await listen();
    // the root, templates/, roles/, roles/triager/
    expect(fsWatchHandles()).toBe(idle + 4);
    // the first relist learns the library as it is; a change after it is news
    await until(() => app!.eventStreams.stats().looks >= 1);
    const second = await listen();
    expect(fsWatchHandles()).toBe(idle + 4);
    first.close();
    await until(() => app!.eventStreams.stats().subscribers === 1);
    expect(fsWatchHandles()).toBe(idle + 4);
    // still watching: a hand edit reaches the stream left
    await writeFile(fx.at('templates', 'gamma.yaml'), named('gamma'));
    await second.next((f) => f.event === 'template.changed');
    second.close();
    await until(() => app!.eventStreams.stats().subscribers === 0);
    await until(() => fsWatchHandles() === idle);
    // and again, as a page reloads
    await listen();
    expect(fsWatchHandles()).toBe(idle + 4);
  });

  test('closing the app with a stream open closes every watch', async () => {
    const idle = fsWatchHandles();
    await listen();
    expect(fsWatchHandles()).toBe(idle + 4);
    await app!.close();
    app = null;
    await until(() => fsWatchHandles() === idle);
  });
});
