/**
 * One scale point of bench/library.ts, in a process of its own so the RSS it
 * reports is this list's alone: `node --expose-gc library-child.js time|rss|parts <N> <root>`
 * lists the N operator templates the parent made under <root> cold (a fresh
 * library) and warm, and prints one JSON line (ChildResult). The JIT is warmed on a small root first
 * so the first list at N measures the library, not the compiler.
 */
import { readFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { buildApp } from '../src/app.js';
import { openLibrary } from '../src/library/library.js';
import { EntryCache } from '../src/library/memos/entry-cache.js';
import { ValidationMemo } from '../src/library/memos/validation-memo.js';
import { libraryContext, libraryReads, silentLogger } from '../src/library/reader.js';
import { loadShipped } from '../src/library/shipped.js';
import { READ_ONLY_TEMPLATES } from '../src/library/templates/read-only.js';
import { harnessDir } from '../src/paths.js';
import { validateTemplate } from '../src/template/validate.js';
import { timeAsync } from './table.js';
import { makeOperatorRoot } from './operator-root.js';
import { median } from './table.js';

export interface ChildResult {
  n: number;
  coldPerTemplateUs: number;
  warmPerTemplateUs: number;
  rssMB: number;
  heapUsedMB: number;
  externalMB: number;
  /** the V8 heap committed (used or not), MB */
  heapCommittedMB: number;
  /** used MB per V8 heap space (old, code, large objects, new…) */
  spacesMB: Record<string, number>;
  /** resident MB of the C heap (glibc's brk arena, `[heap]` in /proc/self/smaps): freed malloc memory it keeps; null off Linux */
  nativeHeapMB: number | null;
  /** `parts`: what each part the list keeps holds, in JS heap bytes per template */
  parts: { entriesB: number; memoB: number; catalogueB: number; restB: number };
}

/** The resident size of the C heap, from /proc/self/smaps; null where there is none. */
function nativeHeapMB(): number | null {
  try {
    let inHeap = false;
    let kb = 0;
    for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
      if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inHeap = line.endsWith('[heap]');
      else if (inHeap && line.startsWith('Rss:')) kb += Number(line.split(/\s+/)[1]);
    }
    return kb / 1024;
  } catch {
    return null;
  }
}

const gc = () => (globalThis as { gc?: () => void }).gc?.();

/**
 * What each part holds after two lists: the library's reads over the root (the
 * same context and reads the service uses, reader.ts), each part dropped in
 * turn and the heap used compared after gc — the entry cache, the validation
 * memo, the last look's catalogue; `restB` is what is left over the heap before
 * the lists (compiled code, the shapes the lists made).
 */
async function parts(n: number, root: string): Promise<ChildResult['parts']> {
  const ctx = libraryContext({
    fs: { root: await realpath(root), report() {} },
    shipped: await loadShipped(harnessDir),
    readOnly: READ_ONLY_TEMPLATES,
    now: Date.now,
    logger: silentLogger,
  });
  const used = async () => {
    // a turn first: nothing of the last await is still on the stack
    await new Promise((r) => setTimeout(r, 10));
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const before = await used();
  const list = async () => (await libraryReads(ctx).listTemplates()).length;
  if ((await list()) < n || (await list()) < n) throw new Error('the list holds fewer templates than were made');
  const all = await used();
  ctx.entries = new EntryCache();
  const noEntries = await used();
  ctx.memo = new ValidationMemo(validateTemplate);
  const noMemo = await used();
  ctx.last = null;
  const none = await used();
  return { entriesB: (all - noEntries) / n, memoB: (noEntries - noMemo) / n, catalogueB: (noMemo - none) / n, restB: (none - before) / n };
}

async function firstList(root: string): Promise<number> {
  const app = await buildApp({ libraryOptions: { root }, web: false });
  // ready before it serves, as a server is (bench/library.ts warmAndCold)
  await app.ready();
  const t = performance.now();
  const r = await app.inject({ method: 'GET', url: '/api/desk/templates' });
  const ms = performance.now() - t;
  if (r.statusCode !== 200) throw new Error(`list answered ${r.statusCode}`);
  await app.close();
  return ms;
}

/**
 * `time`: cold first lists (fresh libraries) and the warm list's median.
 * `rss`: one library lists once cold and once warm, then answers a health check
 * (which lists again) and waits for its history to settle, then the memory is read —
 * in a process that did nothing else, so the figure is the library's and not
 * the timing loop's garbage (megabytes of response bodies).
 */
async function main(mode: string, n: number, root: string): Promise<Partial<ChildResult>> {
  if (mode === 'parts') return { n, parts: await parts(n, root) };
  if (mode === 'rss') {
    // opened here so its history can be waited for: a root never committed is imported once, in the background,
    // and its bytes held meanwhile are the first start's, not what listing keeps
    const library = await openLibrary({ root });
    const app = await buildApp({ library, web: false });
    for (const url of ['/api/desk/templates', '/api/desk/templates', '/api/desk/health']) {
      const r = await app.inject({ method: 'GET', url });
      if (r.statusCode !== 200) throw new Error(`${url} answered ${r.statusCode}`);
    }
    // the health check last (a third list, warm, with a small answer), so inject's last response is not the list's
    await library.history.settle();
    // a turn of the event loop, then gc twice a turn apart: inject's last callbacks hold the list's
    // response (at 10,000: 7 MB as a string, 3.6 MB as bytes) until they run, and what it holds outside
    // the heap (7 MB more) is freed by the finalizers the first gc schedules. The harness's memory, not
    // what a server that has sent its answer keeps (at 10,000: 213 MB with one gc, 190 MB so)
    await new Promise((r) => setTimeout(r, 100));
    gc();
    await new Promise((r) => setTimeout(r, 50));
    gc();
    const m = process.memoryUsage();
    const spacesMB = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name.replace(/_space$/, ''), s.space_used_size / 2 ** 20]));
    const heapCommittedMB = getHeapStatistics().total_heap_size / 2 ** 20;
    await app.close();
    await library.close();
    return { n, rssMB: m.rss / 2 ** 20, heapUsedMB: m.heapUsed / 2 ** 20, externalMB: m.external / 2 ** 20, heapCommittedMB, spacesMB, nativeHeapMB: nativeHeapMB() };
  }
  const warmup = await makeOperatorRoot(50, { settle: false });
  for (let i = 0; i < 5; i++) await firstList(warmup.root);
  await warmup.remove();

  const cold: number[] = [];
  for (let i = 0; i < Math.max(1, Math.min(5, 10_000 / n)); i++) cold.push(await firstList(root));
  const app = await buildApp({ libraryOptions: { root }, web: false });
  const list = async () => {
    const r = await app.inject({ method: 'GET', url: '/api/desk/templates' });
    if (r.statusCode !== 200) throw new Error(`list answered ${r.statusCode}`);
  };
  await list();
  const warm = await timeAsync(list, 1_500, 10);
  await app.close();
  // the shipped templates are listed too, but n is what the operator added
  return { n, coldPerTemplateUs: (median(cold) * 1000) / n, warmPerTemplateUs: (warm * 1000) / n };
}

const [mode, count, root] = process.argv.slice(2);
const n = Number(count);
// rss of 0: the same process over an empty root, the baseline of the RSS row
if (!mode || !['time', 'rss', 'parts'].includes(mode) || !Number.isInteger(n) || n < (mode === 'rss' ? 0 : 1) || !root) throw new Error('usage: library-child.js time|rss|parts <N> <root>');
process.stdout.write(`${JSON.stringify(await main(mode, n, root))}\n`);
