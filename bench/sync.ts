/**
 * Two desks syncing (docs/history.md, Sync): two real servers
 * (dist/src/server.js) on two roots sharing one bare repository, each
 * syncing every second (DESK_SYNC_INTERVAL=1). A save on A is timed from its
 * answer until a GET on B shows the saved bytes (polled every 25 ms), over
 * ROUNDS saves; the baseline is the interval itself, so the goal is a ratio:
 * visible on B within one interval.
 *
 * And a round that brings 20,000 names (BENCH_BIG_ROUND sets N), in a child
 * process (bench/sync-big-child.ts) so its RSS is the round's: /health's
 * p99 and slowest answer while it runs, against /health with nothing
 * running in the same process; RSS after it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { fileURLToPath } from 'node:url';
import { type BenchRow, median } from './table.js';

const INTERVAL_S = 1;
const ROUNDS = 8;
const SERVER = join(packageRoot, 'dist', 'src', 'server.js');

interface Server {
  child: ChildProcess;
  base: string;
}

async function start(root: string, bare: string): Promise<Server> {
  const child = spawn(process.execPath, [SERVER], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', DESK_LIBRARY_ROOT: root, DESK_LIBRARY_REMOTE: bare, DESK_SYNC_INTERVAL: String(INTERVAL_S) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code} before listening`)));
  });
  child.stdout!.resume();
  return { child, base };
}

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(url, init);
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

async function bigRound(): Promise<BenchRow[]> {
  const n = Number(process.env.BENCH_BIG_ROUND ?? 20000);
  const script = fileURLToPath(new URL('./sync-big-child.js', import.meta.url));
  const out = execFileSync(process.execPath, ['--expose-gc', script, String(n)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const r = JSON.parse(out.trim().split('\n').pop()!) as { n: number; seconds: number; files: number; idle: number[]; during: number[]; rss: number };
  if (r.files < n) throw new Error(`the round committed ${r.files} of ${n} templates`);
  const [p99, max, idle99, idleMax] = [percentile(r.during, 99), Math.max(...r.during), percentile(r.idle, 99), Math.max(...r.idle)];
  const mb = r.rss / 2 ** 20;
  return [
    { name: `GET /health p99 while a round brings ${n} templates (${r.seconds.toFixed(0)} s, ${r.during.length} asked)`, value: p99, unit: 'ms', baseline: idle99, baselineName: 'no round, p99', ratio: p99 / idle99, goal: '≤ 100 ms', ok: p99 <= 100 },
    { name: `GET /health slowest while that round runs`, value: max, unit: 'ms', baseline: idleMax, baselineName: 'no round, slowest', ratio: max / idleMax, goal: '≤ 250 ms', ok: max <= 250 },
    { name: `RSS after the round of ${n} (child process, after gc)`, value: mb, unit: 'MB', goal: '≤ 300 MB', ok: mb <= 300 },
  ];
}

/** A round that takes N changed names ÷ N × (validate one template + two bare durable writes), in one child process. */
async function roundThroughput(): Promise<BenchRow[]> {
  const n = Number(process.env.BENCH_ROUND_NAMES ?? 1000);
  const script = fileURLToPath(new URL('./sync-round-child.js', import.meta.url));
  const out = execFileSync(process.execPath, [script, String(n)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const r = JSON.parse(out.trim().split('\n').pop()!) as { n: number; round: number; baseline: number };
  return [
    {
      name: `a round taking ${n} changed names from the remote, median of 3 passes alternated with the baseline (${(n / r.round).toFixed(0)} names/s)`,
      value: r.round,
      unit: 's',
      baseline: r.baseline,
      baselineName: `${n} × (validate + two bare durable writes), median of 3`,
      ratio: r.round / r.baseline,
      goal: '≤ 1.5',
      ok: r.round / r.baseline <= 1.5,
    },
  ];
}

export async function bench(): Promise<BenchRow[]> {
  return [...(await roundThroughput()), ...(await twoDesks()), ...(await bigRound())];
}

async function twoDesks(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'desk-bench-sync-'));
  const bare = join(dir, 'team.git');
  execFileSync('git', ['init', '--bare', '-q', '-b', 'main', bare]);
  const servers: Server[] = [];
  try {
    const a = await start(join(dir, 'a'), bare);
    servers.push(a);
    const b = await start(join(dir, 'b'), bare);
    servers.push(b);
    const url = (s: Server) => `${s.base}/api/desk/templates/quick-fix`;
    const shipped = (await json(url(a))).body.source as string;
    // both desks level before the first timed save
    await new Promise((r) => setTimeout(r, 3 * INTERVAL_S * 1000));
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const source = shipped.replace(/purpose: .*/, `purpose: round ${i} of the sync bench`);
      const saved = await json(url(a), { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ source }) });
      if (saved.status !== 200) throw new Error(`save answered ${saved.status}`);
      const t0 = performance.now();
      const give = t0 + 30_000;
      while ((await json(url(b))).body.source !== source) {
        if (performance.now() > give) throw new Error('the save did not reach B in 30 s');
        await new Promise((r) => setTimeout(r, 25));
      }
      times.push(performance.now() - t0);
      // a random phase against B's interval for the next round
      await new Promise((r) => setTimeout(r, 137 * (i + 1)));
    }
    const interval = INTERVAL_S * 1000;
    const p50 = median(times);
    const max = Math.max(...times);
    return [
      { name: `save on A visible on B, p50 of ${ROUNDS} (DESK_SYNC_INTERVAL=${INTERVAL_S})`, value: p50, unit: 'ms', baseline: interval, baselineName: 'the interval', ratio: p50 / interval, goal: '≤ 1.0', ok: p50 <= interval },
      { name: `save on A visible on B, slowest of ${ROUNDS}`, value: max, unit: 'ms', baseline: interval, baselineName: 'the interval', ratio: max / interval },
    ];
  } finally {
    for (const s of servers) s.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}
