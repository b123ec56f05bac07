/**
 * What an idle service costs while the settings page is open: the CPU time
 * of the service (library, app and one open events stream, in this process)
 * over a window, as % of one core, on a root of 10,000 operator templates.
 * The goal is ≤ 1 % of a core. The baseline is the same idle service with no
 * stream open, measured just before in the same run.
 *
 * The window opens with the stream, so it holds the list of the library the
 * stream's opening costs and every later look at the disk; its default, 60 s
 * (BENCH_IDLE_S), is the safety-net relist's interval, which makes the
 * figure what a stream costs over time (a shorter window weighs the opening
 * list more). Also reported: the window after that opening list, one full
 * list of the library in CPU ms (what every relist is made of), and that
 * list spread over the watcher's relist interval.
 *
 * It runs against older trees as they are (the 2 s relist before the folder
 * watches): it uses only buildApp, openLibrary and the streams' stats.
 *
 * The root is a temp folder (bench/operator-root.ts), removed afterwards.
 */
import { get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { openLibrary } from '../src/library/library.js';
import { makeOperatorRoot } from './operator-root.js';
import type { BenchRow } from './table.js';

const TEMPLATES = 10_000;
const GOAL_PCT = 1;
/**
 * A rest before the windows, so the baseline is the service idle and not the
 * warm-up's tail: V8's memory reducer compacts the heap some 30 s after the
 * warm-up's garbage (hundreds of ms of CPU, once). The stream's window keeps
 * that tail of its own looks: it is part of what they cost.
 */
const REST_MS = 40_000;

/** CPU of this process (user + system, every thread), in ms. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** % of one core this process used over the next `seconds`, doing nothing but what is already running. */
async function cpuOver(seconds: number): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  const c0 = cpuMs();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return ((cpuMs() - c0) / (performance.now() - t0)) * 100;
}

/**
 * The same, split where `done()` first holds (the stream's opening look has
 * ended): % of a core over the whole window, and over what came after.
 */
async function cpuOverSplit(seconds: number, open: () => Promise<unknown>, done: () => boolean): Promise<{ whole: number; after: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const c0 = cpuMs();
  const t0 = performance.now();
  await open();
  const end = t0 + seconds * 1000;
  // polled, not told: the old watcher has no hook to tell it; 20 wake-ups a second cost next to nothing
  while (!done() && performance.now() < end) await new Promise((r) => setTimeout(r, 50));
  const c1 = cpuMs();
  const t1 = performance.now();
  await new Promise((r) => setTimeout(r, Math.max(0, end - t1)));
  const c2 = cpuMs();
  const t2 = performance.now();
  return { whole: ((c2 - c0) / (t2 - t0)) * 100, after: t2 - t1 > 0 ? ((c2 - c1) / (t2 - t1)) * 100 : Number.NaN };
}

/** An events stream held open, read and dropped, as a page's EventSource would; resolves once `ready` came. */
function openStream(url: string): Promise<{ close(): void }> {
  return new Promise((resolve, reject) => {
    const req = get(url, (res: IncomingMessage) => {
      if (res.statusCode !== 200) return reject(new Error(`the events stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let seen = '';
      const onData = (chunk: string) => {
        seen += chunk;
        if (seen.includes('event: ready')) {
          res.off('data', onData);
          res.resume();
          resolve({ close: () => req.destroy() });
        }
      };
      res.on('data', onData);
    });
    req.on('error', reject);
  });
}

const round = (x: number, d = 3) => Number(x.toPrecision(d));

export async function bench(): Promise<BenchRow[]> {
  const seconds = Number(process.env.BENCH_IDLE_S ?? 60);
  if (!(seconds > 0)) throw new Error(`BENCH_IDLE_S must be a number of seconds, not ${process.env.BENCH_IDLE_S}`);
  const op = await makeOperatorRoot(TEMPLATES);
  const library = await openLibrary({ root: op.root });
  const app = await buildApp({ library, web: false });
  try {
    // as a page that has loaded once leaves it: every template validated and its facts cached
    // (before listening: a listening app answers only the Host of its port, which inject does not send)
    for (let i = 0; i < 2; i++) {
      const r = await app.inject({ method: 'GET', url: '/api/desk/templates' });
      if (r.statusCode !== 200) throw new Error(`list answered ${r.statusCode}`);
    }
    await library.history.settle();
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/desk/events`;
    // what the warm-up left to do in the background (REST_MS) is done before any window
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((r) => setTimeout(r, REST_MS));

    const quiet = await cpuOver(seconds);
    const streams = app.eventStreams;
    const looks0 = streams.stats().looks;
    let stream: { close(): void } | null = null;
    const open = await cpuOverSplit(
      seconds,
      async () => {
        stream = await openStream(url);
      },
      () => streams.stats().looks > looks0,
    );
    const looks = streams.stats().looks - looks0;
    (stream as { close(): void } | null)?.close();

    // one full list of the library as a relist makes it, warm
    const lists: number[] = [];
    for (let i = 0; i < 3; i++) {
      const c0 = cpuMs();
      await library.listTemplates();
      await library.listRoles();
      lists.push(cpuMs() - c0);
    }
    const list = lists.sort((a, b) => a - b)[1]!;

    const unit = '% of a core';
    const vsQuiet = (x: number) => ({ baseline: round(quiet), baselineName: 'no stream open', ...(quiet > 0 ? { ratio: round(x / quiet) } : {}) });
    return [
      {
        name: `idle service, ${TEMPLATES} templates, one events stream open: ${seconds} s from its opening (${looks} look(s) at the disk)`,
        value: round(open.whole),
        unit,
        ...vsQuiet(open.whole),
        goal: `≤ ${GOAL_PCT} %`,
        ok: open.whole <= GOAL_PCT,
      },
      { name: 'the same window once the opening look had ended', value: round(open.after), unit, ...vsQuiet(open.after) },
      { name: `one full list of the library (${TEMPLATES} templates and the roles), warm, CPU`, value: round(list), unit: 'ms' },
      { name: `that list once every ${library.watcher.relistMs / 1000} s (the watcher's relist interval)`, value: round((list / library.watcher.relistMs) * 100), unit },
    ];
  } finally {
    await app.close();
    await library.close();
    await op.remove();
  }
}
