/**
 * History (docs/history.md): what keeping every write as a git commit costs.
 *
 * - `PUT` of a shipped template's copy with history ÷ the same save with
 *   history off (git not on the library's PATH), p50 and p99: paced as an
 *   operator saves (each save after the last commit landed; the goal), and
 *   in bursts of ten back to back, whose commits run beside the later saves
 *   and take their CPU and disk flushes (reported, no goal). The two roots
 *   take turns, and a turn starts only when the history side's commits
 *   have landed, so none leaks into the other side's samples. Also, for
 *   the record, a save followed by its commit landing.
 * - the history of a template with 1,000 commits, through the library API
 *   and through `GET …/history` (the route's default page), against
 *   `git log` of the same path run directly;
 * - a start on a root with 10,000 commits (built with `git fast-import`),
 *   from spawning the server to its `Server listening` line, against the
 *   same start with history off;
 * - paging the library's history on that root: the pages after the first
 *   (the walk of every commit kept in memory by src/library/history/read.ts)
 *   against a first page, which walks all 10,000 commits — what every page
 *   would cost without that cache;
 * - git from a helper: what starting a git process costs a service of
 *   200 MB RSS through the helper against starting it directly (spawns());
 * - one pack a batch: fast-import of a small batch as a pack against git's
 *   default of loose objects (packs()).
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, buildApp } from '../src/app.js';
import { IGNORE_BLOCK } from '../src/library/history/repo.js';
import { pinnedAt } from '../src/library/history/read.js';
import { openLibrary } from '../src/library/library.js';
import { harnessDir, packageRoot } from '../src/paths.js';
import { type BenchRow, median } from './table.js';

const NO_GIT = { PATH: '/nonexistent-no-git' };

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

const shipped = () => readFileSync(join(harnessDir, 'templates', 'quick-fix.yaml'), 'utf8');
const edit = (src: string, i: number) => src.replace('purpose:', `# edit ${String(i).padStart(6, '0')}\n  purpose:`);

function appOn(root: string, history: boolean): Promise<App> {
  return buildApp({ libraryOptions: { root, ...(history ? {} : { history: { env: NO_GIT } }) }, web: false });
}

async function saves(base: string): Promise<BenchRow[]> {
  const withH = await appOn(join(base, 'with'), true);
  const without = await appOn(join(base, 'without'), false);
  const src = shipped();
  let n = 0;
  const put = async (app: App) => {
    const t = performance.now();
    const r = await app.inject({ method: 'PUT', url: '/api/desk/templates/quick-fix', payload: { source: edit(src, n++) } });
    if (r.statusCode !== 200) throw new Error(`save answered ${r.statusCode}: ${r.body.slice(0, 200)}`);
    return performance.now() - t;
  };
  for (let i = 0; i < 5; i++) {
    await put(withH);
    await put(without);
  }
  await waitForCommits(join(base, 'with'));
  // paced like an operator's saves: each one after the last commit landed, one with and one without, in turn
  const paced = { a: [] as number[], b: [] as number[] };
  for (let i = 0; i < 100; i++) {
    paced.a.push(await put(withH));
    await waitForCommits(join(base, 'with'));
    paced.b.push(await put(without));
  }
  // a burst: ten saves back to back, their commits landing beside the later ones; blocks in turn
  const burst = { a: [] as number[], b: [] as number[] };
  for (let block = 0; block < 12; block++) {
    for (let i = 0; i < 10; i++) burst.a.push(await put(withH));
    await waitForCommits(join(base, 'with'));
    for (let i = 0; i < 10; i++) burst.b.push(await put(without));
  }
  await withH.close();
  await without.close();
  const lib = await openLibrary({ root: join(base, 'landed') });
  const landed: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    await lib.saveTemplate('quick-fix', edit(src, n++));
    await lib.history.settle();
    landed.push(performance.now() - t);
  }
  await lib.close();
  const row = (name: string, a: number[], b: number[], p: number, goal: boolean): BenchRow => {
    const value = percentile(a, p);
    const baseline = percentile(b, p);
    return { name, value, unit: 'ms', baseline, baselineName: 'history off', ratio: value / baseline, ...(goal ? { goal: '≤ 1.5', ok: value / baseline <= 1.5 } : {}) };
  };
  return [
    row("PUT a shipped template's copy with history, p50 ÷ history off (each save after the last commit landed)", paced.a, paced.b, 50, true),
    row("PUT a shipped template's copy with history, p99 ÷ history off (each save after the last commit landed)", paced.a, paced.b, 99, false),
    row('the same, p50, in bursts of 10 back to back (commits landing beside the saves)', burst.a, burst.b, 50, false),
    row('the same, p99, in bursts of 10 back to back', burst.a, burst.b, 99, false),
    { name: 'a save and its commit landed (library API; settle() cuts the batching wait), p50 ÷ a PUT with history off', value: median(landed), unit: 'ms', baseline: percentile(paced.b, 50), baselineName: 'history off', ratio: median(landed) / percentile(paced.b, 50) },
  ];
}

/** HEAD holds what is on disk: the background commits have landed. */
async function waitForCommits(root: string): Promise<void> {
  const want = () => execFileSync('git', ['hash-object', join(root, 'templates', 'quick-fix.yaml')], { encoding: 'utf8' }).trim();
  const head = () => {
    try {
      return gitIn(root, 'rev-parse', 'HEAD:templates/quick-fix.yaml').trim();
    } catch {
      return '';
    }
  };
  const until = Date.now() + 60_000;
  while (head() !== want() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

const gitIn = (root: string, ...args: string[]) =>
  execFileSync('git', args, { encoding: 'utf8', maxBuffer: 1 << 28, env: { PATH: process.env.PATH ?? '', GIT_DIR: join(root, '.git'), GIT_WORK_TREE: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

/**
 * A root whose history has `commits` commits over `names` custom templates
 * (round robin), made in one `git fast-import`, then checked out.
 */
async function rootWithHistory(root: string, commits: number, names: number): Promise<string[]> {
  await mkdir(root, { recursive: true });
  gitIn(root, 'init', '-q', '-b', 'main');
  const src = shipped();
  const list = Array.from({ length: names }, (_, i) => `bench-${String(i).padStart(4, '0')}`);
  const chunks: string[] = [];
  const data = (s: string) => `data ${Buffer.byteLength(s)}\n${s}\n`;
  const t0 = 1_790_000_000;
  for (let i = 0; i < commits; i++) {
    const name = list[i % names]!;
    const text = edit(src.replace(/^ {2}name: quick-fix$/m, `  name: ${name}`), i);
    chunks.push(`commit refs/heads/main\nmark :${i + 1}\nauthor desk <desk@localhost> ${t0 + i} +0000\ncommitter desk <desk@localhost> ${t0 + i} +0000\n`);
    chunks.push(data(`save ${name}\n\nWho: 127.0.0.1\n`));
    if (i > 0) chunks.push(`from :${i}\n`);
    if (i === 0) chunks.push(`M 100644 inline .gitignore\n${data(IGNORE_BLOCK)}`);
    chunks.push(`M 100644 inline templates/${name}.yaml\n${data(text)}\n`);
  }
  execFileSync('git', ['fast-import', '--quiet'], { input: chunks.join(''), env: { PATH: process.env.PATH ?? '', GIT_DIR: join(root, '.git'), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }, maxBuffer: 1 << 28 });
  gitIn(root, 'checkout', '-q', '-f', 'main');
  return list;
}

function timeIt(fn: () => Promise<unknown>, count: number): Promise<number> {
  return (async () => {
    const s: number[] = [];
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      await fn();
      s.push(performance.now() - t);
    }
    return median(s);
  })();
}

async function logs(base: string): Promise<BenchRow[]> {
  const root = join(base, 'log');
  // 1,000 commits of one template, among 1,500 commits of the library
  const names = await rootWithHistory(root, 3_000, 3);
  const name = names[0]!;
  const path = `templates/${name}.yaml`;
  const count = gitIn(root, 'rev-list', '--count', 'HEAD', '--', path).trim();
  if (count !== '1000') throw new Error(`expected 1,000 commits of ${path}, have ${count}`);
  const lib = await openLibrary({ root });
  const app = await buildApp({ library: lib, web: false });
  const rows: BenchRow[] = [];
  const direct = await timeIt(async () => gitIn(root, 'log', '--format=%H %at %s', '--', path), 10);
  for (const limit of [20, 1000]) {
    const ms = await timeIt(() => lib.history.log(path, { limit }), 10);
    rows.push({ name: `history of a template with 1,000 commits, library API, ${limit === 1000 ? 'all 1,000' : `a page of ${limit}`}`, value: ms, unit: 'ms', baseline: direct, baselineName: 'git log of the path, all 1,000', ratio: ms / direct, goal: '≤ 100 ms', ok: ms <= 100 });
  }
  const route = await app.inject({ method: 'GET', url: `/api/desk/templates/${name}/history` });
  if (route.statusCode === 200) {
    const ms = await timeIt(() => app.inject({ method: 'GET', url: `/api/desk/templates/${name}/history` }), 10);
    rows.push({ name: `GET /api/desk/templates/${name}/history (the route's default page), 1,000 commits`, value: ms, unit: 'ms', baseline: direct, baselineName: 'git log of the path, all 1,000', ratio: ms / direct, goal: '≤ 100 ms', ok: ms <= 100 });
  } else rows.push({ name: `GET …/history answered ${route.statusCode}: not measured`, value: 0, unit: '' });
  await app.close();
  await lib.close();
  return rows;
}

/** Spawn to `Server listening`, in ms. */
function startToListening(root: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, [join(packageRoot, 'dist', 'src', 'server.js')], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', DESK_LIBRARY_ROOT: root, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (/Server listening at/.test(out)) {
        const ms = performance.now() - t;
        child.once('exit', () => resolve(ms));
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) => {
      if (!/Server listening at/.test(out)) reject(new Error(`server exited ${code} before listening`));
    });
  });
}

/**
 * A first page of the library's history (a new head: the walk of all 10,000
 * commits is made) against the nine pages after it, each from the cursor
 * the page before gives (the walk is kept). Five rounds, medians.
 */
async function paging(root: string): Promise<BenchRow[]> {
  const lib = await openLibrary({ root });
  const first: number[] = [];
  const later: number[] = [];
  try {
    for (let round = 0; round < 5; round++) {
      // a commit of nobody's: a new head, so nothing is kept for it yet
      gitIn(root, '-c', 'user.name=bench', '-c', 'user.email=b@localhost', 'commit', '-q', '--allow-empty', '-m', `page round ${round}`);
      const head = gitIn(root, 'rev-parse', 'HEAD').trim();
      let t = performance.now();
      let page = await lib.history.recent({ limit: 20 });
      first.push(performance.now() - t);
      for (let p = 0; p < 9; p++) {
        t = performance.now();
        page = await lib.history.recent({ limit: 20, before: pinnedAt(head, page.at(-1)!.commit) });
        later.push(performance.now() - t);
      }
    }
  } finally {
    await lib.close();
  }
  const value = median(later);
  const baseline = median(first);
  return [{ name: "the library's history, 10,000 commits, a page of 20 after the first (the walk kept), median of 45 ÷ a first page (the walk made), median of 5", value, unit: 'ms', baseline, baselineName: 'first page', ratio: value / baseline }];
}

async function starts(root: string): Promise<BenchRow[]> {
  // the first start adds nothing (the .gitignore and every file are committed); later ones are the same
  const w: number[] = [];
  const wo: number[] = [];
  for (let i = 0; i < 5; i++) {
    w.push(await startToListening(root, {}));
    wo.push(await startToListening(root, NO_GIT));
  }
  const value = median(w);
  const baseline = median(wo);
  return [{ name: 'start on a root with 10,000 commits (100 templates) to listening', value, unit: 'ms', baseline, baselineName: 'history off', ratio: value / baseline, goal: '≤ 2 s', ok: value <= 2000 }];
}

const execFileP = promisify(execFile);

/**
 * git from a helper (src/library/history/spawner.ts): a process of about
 * 200 MB RSS, a service holding 10,000 templates, runs `git --version`
 * through the library's GitSpawner ÷ started directly with execFile, as
 * the service did: its own CPU per git process (the time its one thread
 * was busy: fork, then copy-on-write faults) and the wall time per process.
 */
async function spawns(): Promise<BenchRow[]> {
  const script = fileURLToPath(new URL('./git-spawn-child.js', import.meta.url));
  const { stdout } = await execFileP(process.execPath, [script, '200'], { maxBuffer: 1 << 20 });
  const r = JSON.parse(stdout) as { rss: number; direct: { cpu: number; wall: number }; helper: { cpu: number; wall: number } };
  const at = `a process of ${r.rss} MB RSS`;
  return [
    { name: `git from a helper: the service's own CPU per git process, ${at}, through the helper ÷ started directly`, value: r.helper.cpu, unit: 'ms', baseline: r.direct.cpu, baselineName: 'started directly', ratio: r.helper.cpu / r.direct.cpu, goal: '≤ 0.3', ok: r.helper.cpu / r.direct.cpu <= 0.3 },
    { name: `git from a helper: wall time per git process, ${at}, through the helper ÷ started directly`, value: r.helper.wall, unit: 'ms', baseline: r.direct.wall, baselineName: 'started directly', ratio: r.helper.wall / r.direct.wall },
  ];
}

/**
 * One pack a batch (commit-queue.ts): `git fast-import` of a batch of 1 and
 * of 25 saves (fresh objects each time: a template's new bytes, its commit
 * and trees) with `fastimport.unpackLimit=0`, against git's default, which
 * writes a run of under 100 objects loose, each file flushed on its own.
 * Wall time of the whole import with the service's fsync settings, median
 * of 9 alternating rounds.
 */
function packs(base: string): BenchRow[] {
  const repo = join(base, 'packs');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  const source = shipped();
  let round = 0;
  const stream = (n: number) => {
    const parts: string[] = ['reset refs/desk/queue\n'];
    for (let i = 0; i < n; i++) {
      const body = source.replace('purpose:', `# edit ${round++}\n  purpose:`);
      parts.push(`commit refs/desk/queue\ncommitter d <d@example.invalid> 1 +0000\ndata 5\nsave\nM 100644 inline templates/quick-fix.yaml\ndata ${Buffer.byteLength(body)}\n${body}\n`);
    }
    return `${parts.join('')}done\n`;
  };
  const fsync = ['-c', 'core.fsync=committed,index', '-c', 'core.fsyncMethod=fsync'];
  const time = (n: number, pack: boolean) => {
    const input = stream(n);
    const t = performance.now();
    execFileSync('git', [...fsync, ...(pack ? ['-c', 'fastimport.unpackLimit=0'] : []), 'fast-import', '--quiet', '--force', '--done'], { cwd: repo, input });
    return performance.now() - t;
  };
  return [1, 25].map((n): BenchRow => {
    const packed: number[] = [];
    const loose: number[] = [];
    for (let i = 0; i < 9; i++) {
      packed.push(time(n, true));
      loose.push(time(n, false));
    }
    const value = median(packed);
    const baseline = median(loose);
    return { name: `one pack a batch: git fast-import of ${n} commit${n > 1 ? 's' : ''}, one pack ÷ git's default (loose under 100 objects)`, value, unit: 'ms', baseline, baselineName: 'loose objects', ratio: value / baseline, goal: '≤ 0.8', ok: value / baseline <= 0.8 };
  });
}

export async function bench(): Promise<BenchRow[]> {
  const rows = await spawns();
  const base = await mkdtemp(join(tmpdir(), 'desk-bench-history-'));
  try {
    await writeFile(join(base, 'README'), 'desk-library history benchmark scratch\n');
    rows.push(...packs(base));
    const big = join(base, 'start');
    await rootWithHistory(big, 10_000, 100);
    return [...rows, ...(await saves(base)), ...(await logs(base)), ...(await starts(big)), ...(await paging(big))];
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
