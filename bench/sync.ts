/**
 * Two desks syncing (docs/history.md, Sync): two real servers
 * (dist/src/server.js) on two roots sharing one bare repository, each
 * syncing every second (DESK_SYNC_INTERVAL=1). A save on A is timed from its
 * answer until a GET on B shows the saved bytes (polled every 25 ms), over
 * ROUNDS saves; the baseline is the interval itself, so the goal is a ratio:
 * visible on B within one interval.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
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

export async function bench(): Promise<BenchRow[]> {
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
