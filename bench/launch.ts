/**
 * A launch preview of the shipped `quick-fix` with 100 tickets (100 runs,
 * each with its prompts folded): through the route (`app.inject` on a
 * temp root, so request parsing, the library's read and the answer's
 * serialization count) and in the format layer alone. The goal is the
 * route under 20 ms; the ratio is against validating quick-fix once,
 * measured in the same run, so a slow machine shows as slow in both.
 *
 * Launch drafts (docs/api.md, Launches): a draft of quick-fix with 100
 * tickets through `POST /launches` (its record written durably, its commit
 * queued), ÷ validating quick-fix once, goal ≤ 5. The drafts run back to
 * back, so each pays for the commits of the ones before it that land
 * meanwhile (git runs beside the service on the same cores); as for the
 * preview, the client's parse of the ~200 KB answer is not the draft's
 * cost, so only its id is read. Then 200 conductors waiting over real HTTP
 * (`?wait=55`, the most a wait may be) on 200 drafts: the CPU of the idle
 * service while they wait (goal ≤ 1 % of a core), then all 200 decided one
 * after another, as an operator does, every waiter answered, and the
 * slowest answer after its own decision (goal ≤ 100 ms): from the moment
 * the approve's answer reached the decider to the moment the waiter's
 * answer reached its conductor; beside it, the median, and the longest the
 * process's event loop stood still meanwhile, which no answer can beat.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { previewLaunch } from '../src/template/launch.js';
import { validateTemplate } from '../src/template/validate.js';
import { type BenchRow, median } from './table.js';

const GOAL_MS = 20;
const DRAFT_GOAL_RATIO = 5;
const WAITERS = 200;
const WAIT_GOAL_MS = 100;
const IDLE_GOAL_PCT = 1;
const IDLE_WINDOW_S = Number(process.env.BENCH_WAIT_IDLE_S ?? 10);

/** CPU of this process (user + system), in ms. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** A GET held open until it answers; resolves with when it did (performance.now()) and the status it carried. */
function waitOver(url: string): Promise<{ at: number; status: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ at: performance.now(), status: (JSON.parse(text) as { status: string }).status }));
    }).on('error', reject);
  });
}

/** The folder holding harness/: up from this file (dist/bench when compiled), else the working directory. */
function projectRoot(): string {
  for (let d = dirname(fileURLToPath(import.meta.url)); d !== dirname(d); d = dirname(d)) {
    if (existsSync(join(d, 'harness/templates'))) return d;
  }
  return process.cwd();
}

async function samples(n: number, fn: () => unknown): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

export async function bench(): Promise<BenchRow[]> {
  const project = projectRoot();
  const harnessDir = join(project, 'harness');
  const source = readFileSync(join(harnessDir, 'templates', 'quick-fix.yaml'), 'utf8');
  const catalogue = {
    roles: new Set(readdirSync(join(harnessDir, 'roles'))),
    templates: new Set(readdirSync(join(harnessDir, 'templates')).map((f) => f.replace(/\.yaml$/, ''))),
  };
  const tickets = Array.from({ length: 100 }, (_, i) => `DESK-${1000 + i}`);
  const model = validateTemplate(source, { name: 'quick-fix', catalogue }).template;
  if (!model) throw new Error('quick-fix did not validate');

  const dir = await mkdtemp(join(tmpdir(), 'desk-bench-launch-'));
  const app = await buildApp({ libraryOptions: { root: join(dir, 'root'), harnessDir }, web: false });
  try {
    const request = () => app.inject({ method: 'POST', url: '/api/desk/templates/quick-fix/launch-preview', payload: { inputs: { tickets } } });
    const first = await request();
    if (first.statusCode !== 200 || first.json().runs.length !== 100) throw new Error(`launch preview answered ${first.statusCode}`);
    // reading the answer's JSON is the client's cost, not the preview's
    const inject = async () => {
      const r = await request();
      if (r.statusCode !== 200) throw new Error(`launch preview answered ${r.statusCode}`);
    };
    const validate = () => validateTemplate(source, { name: 'quick-fix', catalogue });
    const fold = () => previewLaunch(model, { tickets });
    // warm every path so the JIT has settled before any is timed
    for (let i = 0; i < 30; i++) {
      await inject();
      validate();
      fold();
    }
    const base = await samples(200, validate);
    const route = await samples(100, inject);
    const pure = await samples(200, fold);
    const drafts = await draftFigures(harnessDir, tickets, validate);
    return [
      ...drafts,
      {
        name: 'launch preview quick-fix, 100 tickets, via the route (÷ validate quick-fix once)',
        value: route,
        unit: 'ms',
        baseline: base,
        baselineName: 'validate quick-fix',
        ratio: route / base,
        goal: `≤ ${GOAL_MS} ms`,
        ok: route <= GOAL_MS,
      },
      {
        name: 'previewLaunch quick-fix, 100 tickets, format layer (÷ validate quick-fix once)',
        value: pure,
        unit: 'ms',
        baseline: base,
        baselineName: 'validate quick-fix',
        ratio: pure / base,
      },
    ];
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The launch draft figures (above), on an app of their own that listens, so waits are real sockets. */
async function draftFigures(harnessDir: string, tickets: string[], validate: () => unknown): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'desk-bench-drafts-'));
  const app = await buildApp({ libraryOptions: { root: join(dir, 'root'), harnessDir }, web: false, launches: { maxPending: 100_000 } });
  try {
    // once the app listens, its Host guard takes only the address it listens on (src/http/guard-host.ts)
    let host = 'localhost';
    const draft = async (inputs: Record<string, unknown>, template = 'quick-fix'): Promise<string> => {
      const r = await app.inject({ method: 'POST', url: '/api/desk/launches', payload: { template, inputs }, headers: { host } });
      if (r.statusCode !== 201) throw new Error(`a draft answered ${r.statusCode}`);
      // the answer opens with its id; parsing the rest is the client's cost (above)
      const id = /^\{"id":"([^"]+)"/.exec(r.rawPayload.subarray(0, 64).toString('latin1'))?.[1];
      if (!id) throw new Error('a draft answered without an id');
      return id;
    };
    for (let i = 0; i < 10; i++) await draft({ tickets });
    // a validation and a draft in turn, so a machine whose load shifts meanwhile weighs on both alike
    const validations: number[] = [];
    const draftTimes: number[] = [];
    for (let i = 0; i < 60; i++) {
      let t = performance.now();
      validate();
      validations.push(performance.now() - t);
      t = performance.now();
      await draft({ tickets });
      draftTimes.push(performance.now() - t);
    }
    const base = median(validations);
    const drafted = median(draftTimes);

    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    host = `127.0.0.1:${port}`;
    const ids: string[] = [];
    for (let i = 0; i < WAITERS; i++) ids.push(await draft({ tickets: [`DESK-${i}`] }));
    const answers = ids.map((id) => waitOver(`http://127.0.0.1:${port}/api/desk/launches/${id}?wait=55`));
    // every wait registered (each has read its draft once), then the service left alone
    await new Promise((r) => setTimeout(r, 2000));
    (globalThis as { gc?: () => void }).gc?.();
    const c0 = cpuMs();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, IDLE_WINDOW_S * 1000));
    const idlePct = ((cpuMs() - c0) / (performance.now() - t0)) * 100;

    // the process's longest stall while deciding (GC, a git spawn, the machine's other load): an answer can wait no less
    const stalls = monitorEventLoopDelay({ resolution: 5 });
    stalls.enable();
    const decidedAt = new Map<string, number>();
    for (const id of ids) {
      const r = await app.inject({ method: 'POST', url: `/api/desk/launches/${id}/approve`, headers: { host } });
      if (r.statusCode !== 200) throw new Error(`an approve answered ${r.statusCode}`);
      decidedAt.set(id, performance.now());
    }
    const heard = await Promise.all(answers);
    stalls.disable();
    const approved = heard.filter((h) => h.status === 'approved').length;
    const after = heard.map((h, i) => h.at - decidedAt.get(ids[i]!)!);
    const slowest = Math.max(...after);
    return [
      {
        name: 'draft quick-fix, 100 tickets, via POST /launches (÷ validate quick-fix once)',
        value: drafted,
        unit: 'ms',
        baseline: base,
        baselineName: 'validate quick-fix',
        ratio: drafted / base,
        goal: `≤ ${DRAFT_GOAL_RATIO}`,
        ok: drafted / base <= DRAFT_GOAL_RATIO,
      },
      {
        name: `${WAITERS} conductors waiting (?wait=55) on ${WAITERS} drafts, idle service, % of a core over ${IDLE_WINDOW_S} s`,
        value: idlePct,
        unit: '%',
        goal: `≤ ${IDLE_GOAL_PCT} %`,
        ok: idlePct <= IDLE_GOAL_PCT,
      },
      {
        name: `all ${WAITERS} decided: waiters answered approved (of ${WAITERS})`,
        value: approved,
        unit: '',
        goal: `${WAITERS}`,
        ok: approved === WAITERS,
      },
      {
        name: 'the slowest wait answered after its decision',
        value: slowest,
        unit: 'ms',
        goal: `≤ ${WAIT_GOAL_MS} ms`,
        ok: slowest <= WAIT_GOAL_MS,
      },
      { name: 'the median wait answered after its decision', value: median(after), unit: 'ms' },
      { name: 'the longest event-loop stall of the process while deciding', value: stalls.max / 1e6, unit: 'ms' },
    ];
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}
