/**
 * Where a save's time goes: `node save-profile-child.js <root> <count> on|off`
 * PUTs a shipped template's copy (new bytes each time) count times through
 * fastify's inject, one after another, under the inspector's sampling
 * profiler, with history on or off, and prints one JSON line
 * (SaveProfileResult): the wall time per save, this process's CPU per save,
 * its children's (git's) CPU per save, and the share of the wall-clock
 * samples each part holds. Idle samples are time waited on the disk's
 * flushes (and on git, when a save waits for nothing else); a sample goes to
 * the innermost part on its stack, so the parts add up.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { harnessDir } from '../src/paths.js';
import { classifySamples, type Part, type ProfileNode } from './profile-parts.js';

export interface SaveProfileResult {
  history: boolean;
  saves: number;
  wallMsPerSave: number;
  cpuMsPerSave: number;
  childCpuMsPerSave: number;
  parts: Record<string, number>;
}

const PARTS: Part[] = [
  ['validate', (fn, url) => fn === 'validateTemplate' && url.includes('/template/validate')],
  ['the answer (card)', (fn) => fn === 'buildCard' || fn === 'templateDetail'],
  ['file steps (intent, copy, marker, flushes)', (fn) => fn === 'writeTemplateSave'],
  ['history job (bytes read, journal written)', (fn, url) => url.includes('/history/recorder') || url.includes('/history/journal') || fn === 'readPaths'],
  ['git processes spawned (fork in this thread)', (fn, url) => url.includes('node:child_process') || url.includes('internal/child_process') || fn === 'spawn'],
  ['commit queue (rest)', (_fn, url) => url.includes('/history/commit-queue') || url.includes('/history/git')],
  ['fastify + inject', (_fn, url) => url.includes('node_modules/fastify') || url.includes('light-my-request') || url.includes('avvio') || url.includes('find-my-way')],
  ['garbage collection', (fn) => fn === '(garbage collector)'],
  ['idle (waiting on flushes or git)', (fn) => fn === '(idle)'],
];

/** Fields 14-17 of /proc/<pid>/stat (utime, stime, cutime, cstime), in ms. */
function cpuOf(pid: number | 'self'): { own: number; waited: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields after the command: state is field 3, so utime (14) … cstime (17) are at 11 … 14 here
  const ms = (i: number) => (Number(f[i]) * 1000) / 100;
  return { own: ms(11) + ms(12), waited: ms(13) + ms(14) };
}

/**
 * CPU of this process's children, ms: those it has waited for, and those
 * still running with what they have waited for — git is started by the
 * library's helper process (src/library/history/spawner.ts), which lives
 * as long as the library and waits for every git.
 */
function childCpuMs(): number {
  let ms = cpuOf('self').waited;
  for (const task of readdirSync('/proc/self/task')) {
    for (const pid of readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) {
      try {
        const c = cpuOf(Number(pid));
        ms += c.own + c.waited;
      } catch {
        // gone since it was listed: its time is in `waited` now
      }
    }
  }
  return ms;
}

async function main(root: string, count: number, history: boolean): Promise<SaveProfileResult> {
  const app = await buildApp({ libraryOptions: history ? { root } : { root, history: { git: join(root, '..', 'no-git') } }, web: false });
  const shipped = readFileSync(join(harnessDir, 'templates', 'quick-fix.yaml'), 'utf8');
  let i = 0;
  const put = async () => {
    const source = shipped.replace('purpose:', `# edit ${String(i++).padStart(6, '0')}\n  purpose:`);
    const r = await app.inject({ method: 'PUT', url: '/api/desk/templates/quick-fix', payload: { source } });
    if (r.statusCode !== 200) throw new Error(`save answered ${r.statusCode}`);
  };
  for (let k = 0; k < 30; k++) await put();
  // timed without the profiler first: its sampling costs CPU of its own
  const plain = await timed(put, count);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  await session.post('Profiler.start');
  for (let k = 0; k < count; k++) await put();
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: { nodes: ProfileNode[]; samples: number[] } };
  session.disconnect();
  await app.close();
  return { history, saves: count, ...plain, parts: classifySamples(profile, PARTS) };
}

async function timed(put: () => Promise<void>, count: number): Promise<Pick<SaveProfileResult, 'wallMsPerSave' | 'cpuMsPerSave' | 'childCpuMsPerSave'>> {
  const cpu0 = process.cpuUsage();
  const child0 = childCpuMs();
  const t = performance.now();
  for (let k = 0; k < count; k++) await put();
  const ms = performance.now() - t;
  const cpu = process.cpuUsage(cpu0);
  const child = childCpuMs() - child0;
  return { wallMsPerSave: ms / count, cpuMsPerSave: (cpu.user + cpu.system) / 1000 / count, childCpuMsPerSave: child / count };
}

const [root, count, history] = process.argv.slice(2);
if (!root || !Number.isInteger(Number(count)) || (history !== 'on' && history !== 'off')) throw new Error('usage: save-profile-child.js <root> <count> on|off');
process.stdout.write(`${JSON.stringify(await main(root, Number(count), history === 'on'))}\n`);
