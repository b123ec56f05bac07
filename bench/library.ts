/**
 * The library through its HTTP face: listing 1,000 operator
 * templates warm and cold, a durable save, and how listing scales to 10,000.
 * Every figure is set against a baseline measured in the same run:
 *
 * - warm `GET /api/desk/templates` ÷ reading and sha256-hashing the same
 *   files (the fastest of three plain ways: one after another, all at once,
 *   synchronous) — a cache that proves files unchanged by stat alone beats it;
 * - the first list of a fresh library ÷ reading and `yaml.parseDocument`-ing
 *   the files (again the faster of async and sync reads);
 * - `PUT` of a shipped template's copy, p50 and p99 ÷ a bare temp-write,
 *   fsync, rename and folder fsync of the same bytes, samples interleaved;
 *   and, to say where a save's time goes, its file steps alone
 *   (templates/files.ts: intent, copy, marker, their flushes) ÷ the same
 *   bare write, and the PUT with history off ÷ the PUT with it on;
 * - list time per template at N = 100, 1,000, 10,000, each in a child
 *   process (bench/library-child.ts), and RSS after listing 10,000.
 *
 * The roots are temp folders (bench/operator-root.ts), removed afterwards.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants, readFileSync } from 'node:fs';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseDocument } from 'yaml';
import { type App, buildApp } from '../src/app.js';
import { loadShipped } from '../src/library/shipped.js';
import { writeTemplateSave } from '../src/library/templates/files.js';
import { harnessDir } from '../src/paths.js';
import type { ChildResult } from './library-child.js';
import { partsText, profileChild } from './profile-parts.js';
import type { SaveProfileResult } from './save-profile-child.js';
import { makeOperatorRoot, type OperatorRoot } from './operator-root.js';
import { type BenchRow, median, timeAsync } from './table.js';

const LIST = '/api/desk/templates';


const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Three honest ways to read and hash every file; the baseline is the fastest of them. */
async function readAndHash(files: string[]): Promise<{ ms: number; how: string }> {
  const ways: [string, () => Promise<unknown>][] = [
    ['one by one', async () => { for (const f of files) sha(await readFile(f)); }],
    ['all at once', () => Promise.all(files.map(async (f) => sha(await readFile(f))))],
    ['sync', async () => { for (const f of files) sha(readFileSync(f)); }],
  ];
  return fastest(ways);
}

async function readAndParse(files: string[]): Promise<{ ms: number; how: string }> {
  const ways: [string, () => Promise<unknown>][] = [
    ['one by one', async () => { for (const f of files) parseDocument(await readFile(f, 'utf8')); }],
    ['all at once', () => Promise.all(files.map(async (f) => parseDocument(await readFile(f, 'utf8'))))],
    ['sync', async () => { for (const f of files) parseDocument(readFileSync(f, 'utf8')); }],
  ];
  return fastest(ways, 5);
}

async function fastest(ways: [string, () => Promise<unknown>][], min = 10): Promise<{ ms: number; how: string }> {
  let best = { ms: Infinity, how: '' };
  for (const [how, fn] of ways) {
    await fn();
    const ms = await timeAsync(fn, 600, min);
    if (ms < best.ms) best = { ms, how };
  }
  return best;
}

function appFor(root: string): Promise<App> {
  return buildApp({ libraryOptions: { root }, web: false });
}

/**
 * One list through inject. Checked (its names counted) only outside the
 * timed calls: decoding the answer to a string and scanning it is the
 * client's work, not the server's — it was a fifth of a timed warm list of
 * 1,000. Timed calls take the answer's bytes as a stream and drain it.
 */
async function getList(app: App, n: number, check = false): Promise<void> {
  const r = await app.inject({ method: 'GET', url: LIST, payloadAsStream: !check });
  if (r.statusCode !== 200) throw new Error(`list answered ${r.statusCode}`);
  if (!check) {
    for await (const _ of r.stream());
    return;
  }
  // counted without parsing the body into objects twice: the list holds the 8 shipped names too
  const count = (r.body.match(/"name":/g) ?? []).length;
  if (count < n) throw new Error(`list held ${count} templates, expected at least ${n}`);
}

export async function warmAndCold(op: OperatorRoot): Promise<BenchRow[]> {
  const n = op.names.length;
  // cold: a fresh library (new process state for the library, same JIT) lists for the first time — once the
  // app is ready, as a server is before it listens: fastify compiles every route's schemas in ready(), which
  // the first inject would otherwise run inside the timed request (0.4–1 s, none of it the list's)
  const cold: number[] = [];
  for (let i = 0; i < 5; i++) {
    const app = await appFor(op.root);
    await app.ready();
    const t = performance.now();
    await getList(app, n);
    cold.push(performance.now() - t);
    await app.close();
  }
  const parse = await readAndParse(op.files);
  const app = await appFor(op.root);
  await getList(app, n, true);
  const warm = await timeAsync(() => getList(app, n), 1_500, 20);
  await app.close();
  const hash = await readAndHash(op.files);
  const coldMs = median(cold);
  return [
    {
      name: `warm GET ${LIST}, ${n} operator templates ÷ read + sha256 every file`,
      value: warm,
      unit: 'ms',
      baseline: hash.ms,
      baselineName: `read + sha256 (${hash.how})`,
      ratio: warm / hash.ms,
      goal: '≤ 1.0',
      ok: warm / hash.ms <= 1.0,
    },
    {
      name: `cold first GET ${LIST}, ${n} templates ÷ read + yaml.parseDocument every file`,
      value: coldMs,
      unit: 'ms',
      baseline: parse.ms,
      baselineName: `read + parseDocument (${parse.how})`,
      ratio: coldMs / parse.ms,
      goal: '≤ 1.5',
      ok: coldMs / parse.ms <= 1.5,
    },
  ];
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** temp file → write → fsync → rename → folder fsync: what any durable write costs at least. */
async function bareDurableWrite(dir: string, bytes: string): Promise<void> {
  const tmp = join(dir, '.tmp-x.yaml');
  const fh = await open(tmp, 'w');
  await fh.writeFile(bytes);
  await fh.sync();
  await fh.close();
  await rename(tmp, join(dir, 'x.yaml'));
  const d = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  await d.sync();
  await d.close();
}

export async function saves(op: OperatorRoot): Promise<BenchRow[]> {
  const plainDir = join(op.base, 'plain');
  await mkdir(plainDir);
  const shipped = readFileSync(join(harnessDir, 'templates', 'quick-fix.yaml'), 'utf8');
  const app = await appFor(op.root);
  const put = async (source: string) => {
    const r = await app.inject({ method: 'PUT', url: `${LIST}/quick-fix`, payload: { source } });
    if (r.statusCode !== 200) throw new Error(`save answered ${r.statusCode}: ${r.body.slice(0, 200)}`);
  };
  // every save new bytes, as an operator's edits are: nothing about them was seen before
  const body = (i: number) => shipped.replace('purpose:', `# edit ${String(i).padStart(6, '0')}\n  purpose:`);
  for (let i = 0; i < 10; i++) {
    await put(body(i));
    await bareDurableWrite(plainDir, body(i));
  }
  const s: number[] = [];
  const b: number[] = [];
  // interleaved: a slow disk moment hits both sides alike
  for (let i = 10; i < 210; i++) {
    let t = performance.now();
    await put(body(i));
    s.push(performance.now() - t);
    t = performance.now();
    await bareDurableWrite(plainDir, body(i));
    b.push(performance.now() - t);
  }
  await app.close();
  const rows = [50, 99].map((p): BenchRow => {
    const value = percentile(s, p);
    const baseline = percentile(b, p);
    return {
      name: `PUT ${LIST}/quick-fix (a shipped template's copy), p${p} ÷ bare temp-write + fsync + rename + folder fsync`,
      value,
      unit: 'ms',
      baseline,
      baselineName: 'bare durable write',
      ratio: value / baseline,
      goal: '≤ 3',
      ok: value / baseline <= 3,
    };
  });
  return [...rows, ...(await saveParts(op, plainDir, body, s)), await saveProfile(op)];
}

/** Where a save's time goes: bench/save-profile-child.ts in a process of its own, on a root of its own. */
async function saveProfile(op: OperatorRoot): Promise<BenchRow> {
  const root = join(op.base, 'profiled');
  await mkdir(root);
  const r = await profileChild<SaveProfileResult>('save-profile-child.js', [root, '200', 'on']);
  return {
    name: `where a PUT ${LIST}/quick-fix spends its time (200 saves in a row, history on, inject, sampling profiler; share of the wall-clock samples): ${partsText(r.parts)}; this process's CPU ${r.cpuMsPerSave.toFixed(2)} ms a save, git's ${r.childCpuMsPerSave.toFixed(2)} ms`,
    value: r.wallMsPerSave,
    unit: 'ms',
  };
}

/**
 * Where a save's time goes: the file steps alone (what the flushes cost)
 * against the bare write, interleaved the same way; and a PUT with history
 * off against the PUT rows above (what queueing the commit and the git
 * processes beside the next saves cost).
 */
async function saveParts(op: OperatorRoot, plainDir: string, body: (i: number) => string, withHistory: number[]): Promise<BenchRow[]> {
  const shipped = (await loadShipped(harnessDir)).templates.get('quick-fix')!;
  const fs = { root: join(op.base, 'steps') };
  await mkdir(join(fs.root, 'templates'), { recursive: true });
  const steps: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 210; i++) {
    let t = performance.now();
    await writeTemplateSave(fs, 'quick-fix', body(i), shipped);
    if (i >= 10) steps.push(performance.now() - t);
    t = performance.now();
    await bareDurableWrite(plainDir, body(i));
    if (i >= 10) bare.push(performance.now() - t);
  }
  const off = await buildApp({ libraryOptions: { root: join(op.base, 'no-history'), history: { git: join(op.base, 'no-git') } }, web: false });
  const plain: number[] = [];
  for (let i = 0; i < 210; i++) {
    const t = performance.now();
    const r = await off.inject({ method: 'PUT', url: `${LIST}/quick-fix`, payload: { source: body(i) } });
    if (r.statusCode !== 200) throw new Error(`save answered ${r.statusCode}`);
    if (i >= 10) plain.push(performance.now() - t);
  }
  await off.close();
  const [s50, b50, p50, h50] = [percentile(steps, 50), percentile(bare, 50), percentile(plain, 50), percentile(withHistory, 50)];
  return [
    { name: "a save's file steps alone (intent, copy, marker and their flushes), p50 ÷ bare durable write", value: s50, unit: 'ms', baseline: b50, baselineName: 'bare durable write', ratio: s50 / b50 },
    { name: `PUT ${LIST}/quick-fix with history off, p50 ÷ the PUT with history on`, value: p50, unit: 'ms', baseline: h50, baselineName: 'history on', ratio: p50 / h50 },
  ];
}

const execFileP = promisify(execFile);

/**
 * The root is made here, so the child's memory holds the list and nothing of the making. `modes`: each
 * a process of its own (library-child.ts); n = 0 is an empty root.
 */
async function child(n: number, modes: string[]): Promise<ChildResult> {
  const op = await makeOperatorRoot(n);
  try {
    const script = fileURLToPath(new URL('./library-child.js', import.meta.url));
    const run = async (mode: string) => {
      const { stdout } = await execFileP(process.execPath, ['--expose-gc', script, mode, String(n), op.root], { maxBuffer: 1 << 20 });
      return JSON.parse(stdout.trim().split('\n').pop()!) as Partial<ChildResult>;
    };
    let out: Partial<ChildResult> = {};
    for (const mode of modes) out = { ...out, ...(await run(mode)) };
    return out as ChildResult;
  } finally {
    await op.remove();
  }
}

export async function scale(): Promise<BenchRow[]> {
  const runs: ChildResult[] = [];
  // RSS only where it is a goal, with the heap by part: a process of its own that lists and is measured
  for (const n of [100, 1_000, 10_000]) runs.push(await child(n, n === 10_000 ? ['time', 'rss', 'parts'] : ['time']));
  // the same process over an empty root: what the modules, fastify and a library of no templates hold
  const empty = await child(0, ['rss']);
  const rows: BenchRow[] = runs.map((r) => ({
    name: `warm GET ${LIST}, ${r.n} templates: time per template (cold first list ${r.coldPerTemplateUs.toFixed(0)} µs/template)`,
    value: r.warmPerTemplateUs,
    unit: 'µs',
  }));
  const small = runs[0]!;
  const large = runs[2]!;
  // linear: the per-template cost at 10,000 is within 1.5× of the cost at 100
  const linear = (what: string, at100: number, at10000: number): BenchRow => ({
    name: `${what}, per-template cost at 10,000 ÷ at 100 (linear)`,
    value: at10000,
    unit: 'µs',
    baseline: at100,
    baselineName: 'at 100',
    ratio: at10000 / at100,
    goal: '≤ 1.5',
    ok: at10000 / at100 <= 1.5,
  });
  rows.push(linear('warm list', small.warmPerTemplateUs, large.warmPerTemplateUs));
  rows.push(linear('cold first list', small.coldPerTemplateUs, large.coldPerTemplateUs));
  const mb = (x: number) => `${x.toFixed(0)} MB`;
  const up = (x: number) => `${Math.round(x) >= 0 ? '+' : '−'}${Math.abs(Math.round(x))} MB`;
  const spaces = Object.entries(large.spacesMB)
    .map(([space, used]): [string, number] => [space, used - (empty.spacesMB[space] ?? 0)])
    .filter(([, rise]) => Math.abs(rise) >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([space, rise]) => `${space} ${up(rise)}`)
    .join(', ');
  // outside the JS heap and the buffers: the C heap's kept memory (when known), then code and the rest
  const cHeap = (r: ChildResult) => r.nativeHeapMB ?? 0;
  const rest = (r: ChildResult) => r.rssMB - r.heapCommittedMB - r.externalMB - cHeap(r);
  const p = large.parts;
  const perTemplate = `entry cache ${p.entriesB.toFixed(0)} B, validation memo ${p.memoB.toFixed(0)} B, catalogue ${p.catalogueB.toFixed(0)} B, code and shapes ${p.restB.toFixed(0)} B`;
  rows.push({
    name:
      `RSS after listing 10,000 templates (child process, history settled, after gc), against the same process over an empty root (${mb(empty.rssMB)}): ` +
      `JS heap used ${up(large.heapUsedMB - empty.heapUsedMB)} (${spaces}; per template: ${perTemplate}), ` +
      `committed ${up(large.heapCommittedMB - empty.heapCommittedMB)}, buffers ${up(large.externalMB - empty.externalMB)}, ` +
      `C heap kept ${up(cHeap(large) - cHeap(empty))}, the rest ${up(rest(large) - rest(empty))}`,
    value: large.rssMB,
    unit: 'MB',
    goal: '≤ 200 MB',
    ok: large.rssMB <= 200,
  });
  return rows;
}

export async function bench(): Promise<BenchRow[]> {
  const op = await makeOperatorRoot(1_000);
  try {
    return [...(await warmAndCold(op)), ...(await saves(op)), ...(await scale())];
  } finally {
    await op.remove();
  }
}
