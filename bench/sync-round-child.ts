/**
 * The child of bench/sync.ts's round throughput: its own process. A desk
 * takes N changed names from the remote in one round; the baseline, in the
 * same process and run, is what taking them can least cost — N × (the one
 * validator over one template + two bare durable writes: write, fsync,
 * rename, fsync of the folder), the work a round must do per name; three
 * passes of each, alternated, compared by their medians. Git itself never fsyncs
 * working-tree files, so it is no baseline. Prints one line of JSON.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { validateTemplate } from '../src/template/validate.js';

const N = Number(process.argv[2] ?? 1000);
const PASSES = 3;
const template = (i: number) =>
  `template:\n  name: t-${i}\n  purpose: number ${i}\n  entry: work\n  inlet: start\nversion: 1\nnodes:\n  work: { type: model, role: reviewer, profile: read_only }\n  gate: { type: builtin, builtin: human_gate }\ncords:\n  - { from: work.done, to: gate.in }\n`;

const base = await mkdtemp(join(tmpdir(), 'desk-bench-round-'));
try {
  // the baseline: validate, then two durable writes (the file and its marker), per name, each pass in a folder of its own
  const catalogue = { roles: new Set(['reviewer']), templates: new Set<string>() };
  // durable as the service's own writes are: the file flushed, renamed in, its folder flushed
  const durable = (dir: string, path: string, text: string) => {
    const fd = openSync(`${path}.tmp`, 'w');
    writeSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(`${path}.tmp`, path);
    const d = openSync(dir, 'r');
    fsyncSync(d);
    closeSync(d);
  };
  const bareRun = (pass: number): number => {
    const dir = join(base, `bare-writes-${pass}`);
    mkdirSync(dir);
    const t0 = performance.now();
    for (let i = 0; i < N; i++) {
      const s = template(i);
      if (!validateTemplate(s, { name: `t-${i}`, catalogue }).valid) throw new Error('the baseline template does not validate');
      durable(dir, join(dir, `t-${i}.yaml`), s);
      durable(dir, join(dir, `.t-${i}.shipped`), 'x\n');
    }
    return (performance.now() - t0) / 1000;
  };
  /** a fresh desk over a fresh remote, which then gets the N templates' commit (a teammate's push); the round's seconds */
  const oneRound = async (pass: number): Promise<number> => {
    const bare = join(base, `remote-${pass}.git`);
    execFileSync('git', ['init', '--bare', '-q', '-b', 'main', bare]);
    const app = await buildApp({ libraryOptions: { root: join(base, `root-${pass}`) }, web: false, sync: { remote: bare, intervalMs: 3_600_000, waitMs: 3_600_000 } });
    await app.ready();
    while ((await app.inject({ method: 'GET', url: '/api/desk/sync' })).json().last_sync === null) await new Promise((r) => setTimeout(r, 50));
    const parts = ['commit refs/heads/main\ncommitter t <t@example.com> 1700000000 +0000\ndata 4\nbig\nfrom refs/heads/main^0\n'];
    for (let i = 0; i < N; i++) parts.push(`M 100644 inline templates/t-${i}.yaml\ndata ${Buffer.byteLength(template(i))}\n${template(i)}\n`);
    execFileSync('git', ['--git-dir', bare, 'fast-import', '--quiet'], { input: `${parts.join('')}done\n`, maxBuffer: 1 << 26 });
    const t1 = performance.now();
    const r = await app.inject({ method: 'POST', url: '/api/desk/sync' });
    const seconds = (performance.now() - t1) / 1000;
    if (r.statusCode !== 200 || r.json().last_error !== null) throw new Error(`the round failed: ${r.body}`);
    await app.close();
    return seconds;
  };
  // the disk's flush time drifts over a run: three passes, each a baseline then a round, and the medians compared
  const bases: number[] = [];
  const rounds: number[] = [];
  for (let pass = 0; pass < PASSES; pass++) {
    bases.push(bareRun(pass));
    rounds.push(await oneRound(pass));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  console.log(JSON.stringify({ n: N, round: median(rounds), baseline: median(bases), rounds, bases }));
} finally {
  await rm(base, { recursive: true, force: true });
}
