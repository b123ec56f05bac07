/**
 * One scale point of bench/library.ts, in a process of its own so the RSS it
 * reports is this list's alone: `node --expose-gc library-child.js time|rss <N> <root>`
 * lists the N operator templates the parent made under <root> cold (a fresh
 * library) and warm, and prints one JSON line (ChildResult). The JIT is warmed on a small root first
 * so the first list at N measures the library, not the compiler.
 */
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { buildApp } from '../src/app.js';
import { openLibrary } from '../src/library/library.js';
import { timeAsync } from './library.js';
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
}

async function firstList(root: string): Promise<number> {
  const app = await buildApp({ libraryOptions: { root }, web: false });
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
  if (mode === 'rss') {
    // opened here so its history can be waited for: a root never committed is imported once, in the background,
    // and its bytes held meanwhile are the first start's, not what listing keeps
    const library = await openLibrary({ root });
    const app = await buildApp({ library, web: false });
    for (const url of ['/api/desk/templates', '/api/desk/templates', '/api/desk/health']) {
      const r = await app.inject({ method: 'GET', url });
      if (r.statusCode !== 200) throw new Error(`${url} answered ${r.statusCode}`);
    }
    // the health check last (a third list, warm, with a small answer): inject keeps its
    // last response reachable, and the list's (its body as a string and as bytes, 7.5 MB
    // each at 10,000) is the harness's memory, not the library's
    await library.history.settle();
    (globalThis as { gc?: () => void }).gc?.();
    const m = process.memoryUsage();
    const spacesMB = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name.replace(/_space$/, ''), s.space_used_size / 2 ** 20]));
    const heapCommittedMB = getHeapStatistics().total_heap_size / 2 ** 20;
    await app.close();
    await library.close();
    return { n, rssMB: m.rss / 2 ** 20, heapUsedMB: m.heapUsed / 2 ** 20, externalMB: m.external / 2 ** 20, heapCommittedMB, spacesMB };
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
if ((mode !== 'time' && mode !== 'rss') || !Number.isInteger(n) || n <= 0 || !root) throw new Error('usage: library-child.js time|rss <N> <root>');
process.stdout.write(`${JSON.stringify(await main(mode, n, root))}\n`);
