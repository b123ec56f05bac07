/**
 * The child of bench/sync.ts's big round: its own process, so its RSS is the
 * round's alone. A bare remote holds N new templates in one commit; a fresh
 * desk (in this process, over app.inject) syncs, and /health is asked every
 * 20 ms before the round (the baseline) and throughout it. Prints one line
 * of JSON.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';

const N = Number(process.argv[2] ?? 20000);
const template = (i: number) =>
  `template:\n  name: t-${i}\n  purpose: number ${i}\n  entry: work\n  inlet: start\nversion: 1\nnodes:\n  work: { type: model, role: reviewer, profile: read_only }\n  gate: { type: builtin, builtin: human_gate }\ncords:\n  - { from: work.done, to: gate.in }\n`;

const base = await mkdtemp(join(tmpdir(), 'desk-bench-big-round-'));
try {
  const bare = join(base, 'remote.git');
  execFileSync('git', ['init', '--bare', '-q', '-b', 'main', bare]);
  // an empty remote: the start's own round finds nothing, so the baseline runs beside no round
  const app = await buildApp({ libraryOptions: { root: join(base, 'root') }, web: false, sync: { remote: bare, intervalMs: 3_600_000 } });
  await app.ready();
  const health = async (until: () => boolean): Promise<number[]> => {
    const waits: number[] = [];
    while (!until()) {
      const t = performance.now();
      const r = await app.inject({ method: 'GET', url: '/api/desk/health' });
      if (r.statusCode !== 200) throw new Error(`/health answered ${r.statusCode}`);
      waits.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
    return waits;
  };
  // wait for the start's own round, then the baseline: 5 s of /health with nothing running
  while ((await app.inject({ method: 'GET', url: '/api/desk/sync' })).json().last_sync === null) await new Promise((r) => setTimeout(r, 50));
  const t0 = performance.now();
  const idle = await health(() => performance.now() - t0 > 5000);
  // the round: the remote gets the N templates' commit (a teammate's push) now that the desk has synced once
  // on top of what the desk pushed at its start (its .gitignore), as a teammate's commit would be
  const parts = ['commit refs/heads/main\ncommitter t <t@example.com> 1700000000 +0000\ndata 4\nbig\nfrom refs/heads/main^0\n'];
  for (let i = 0; i < N; i++) parts.push(`M 100644 inline templates/t-${i}.yaml\ndata ${Buffer.byteLength(template(i))}\n${template(i)}\n`);
  execFileSync('git', ['--git-dir', bare, 'fast-import', '--quiet'], { input: `${parts.join('')}done\n`, maxBuffer: 1 << 26 });
  let done = false;
  const t1 = performance.now();
  const round = app.inject({ method: 'POST', url: '/api/desk/sync' }).then(async (r) => {
    // past POST's wait the round goes on: follow it to its end
    if (r.statusCode === 202) while ((await app.inject({ method: 'GET', url: '/api/desk/sync' })).json().round) await new Promise((r) => setTimeout(r, 200));
    done = true;
  });
  const during = await health(() => done);
  await round;
  const seconds = (performance.now() - t1) / 1000;
  global.gc?.();
  const rss = process.memoryUsage().rss;
  const files = execFileSync('git', ['-C', join(base, 'root'), 'ls-tree', '-r', '--name-only', 'HEAD', 'templates'], { encoding: 'utf8', maxBuffer: 1 << 26 }).split('\n').filter(Boolean).length;
  await app.close();
  console.log(JSON.stringify({ n: N, seconds, files, idle, during, rss }));
} finally {
  await rm(base, { recursive: true, force: true });
}
