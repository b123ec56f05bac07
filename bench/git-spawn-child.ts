/**
 * Child of bench/history.ts's "git from a helper" rows: a process grown to
 * about the RSS of a service holding 10,000 templates (argv[2] MB of small
 * objects, as a heap is, not one buffer) runs `git --version` again and
 * again, started directly with execFile (as the service did) and through
 * the library's GitSpawner, in alternating rounds. Prints one JSON line:
 * per git process, the median over rounds of this process's CPU (the time
 * its one thread was busy starting it, fork and copy-on-write faults
 * included) and of the wall time.
 */
import { execFile } from 'node:child_process';
import { GitSpawner } from '../src/library/history/spawner.js';
import { median } from './table.js';

const mb = Number(process.argv[2] ?? 200);
const ballast: { id: number; name: string; refs: number[] }[] = [];
while (process.memoryUsage().rss < mb * 2 ** 20) {
  for (let i = 0; i < 10_000; i++) ballast.push({ id: i, name: `template-${ballast.length}`, refs: [i, i + 1, i + 2] });
}

const direct = () => new Promise<void>((resolve) => execFile('git', ['--version'], { encoding: 'buffer' }, () => resolve()));
const spawner = new GitSpawner();
const helper = async () => {
  await spawner.run({ bin: 'git', args: ['--version'], cwd: '/', env: { PATH: process.env.PATH }, maxBuffer: 1 << 20, timeout: 0, background: false });
};

const PER_ROUND = 40;
const ROUNDS = 5;
const samples = { direct: { cpu: [] as number[], wall: [] as number[] }, helper: { cpu: [] as number[], wall: [] as number[] } };
await helper(); // the helper's own start is not what is measured
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of [['direct', direct], ['helper', helper]] as const) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < PER_ROUND; i++) {
      await run();
      // the heap is touched between processes, as a service's is between saves: each page forked read-only faults again
      for (let j = i; j < ballast.length; j += 97) ballast[j]!.refs[0]!++;
    }
    const c = process.cpuUsage(c0);
    samples[name].cpu.push((c.user + c.system) / 1000 / PER_ROUND);
    samples[name].wall.push((performance.now() - t0) / PER_ROUND);
  }
}
spawner.close();
const out = (s: { cpu: number[]; wall: number[] }) => ({ cpu: median(s.cpu), wall: median(s.wall) });
console.log(JSON.stringify({ rss: Math.round(process.memoryUsage().rss / 2 ** 20), objects: ballast.length, direct: out(samples.direct), helper: out(samples.helper) }));
