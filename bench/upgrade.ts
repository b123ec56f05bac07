/**
 * The upgrade assistant (docs/operations.md, Upgrading), against the work it
 * is made of, measured in the same run:
 *
 * - the plan of a library of 1,000 copies of shipped templates, 100 of them
 *   behind (an edit of the purpose; the new release adds a note at the end,
 *   so each merges clean) ÷ 100 × (three-way merge + validate) of the same
 *   texts in-process. The plan is timed on a library just opened, so none of
 *   its validations is remembered yet, and it and its baseline take turns
 *   going first; goal ≤ 1.5.
 * - an apply of 100 clean copies (with its history commit) ÷ 100 saves of the
 *   same merged texts (with theirs), each on its own copy of the same root;
 *   goal ≤ 0.5: one commit and batched flushes, where the saves make a
 *   hundred of each.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLibrary } from '../src/library/library.js';
import { RACY_MS } from '../src/library/memos/entry-cache.js';
import { threeWayMerge } from '../src/library/templates/three-way.js';
import type { Library } from '../src/library/types.js';
import { harnessDir } from '../src/paths.js';
import { validateTemplate } from '../src/template/validate.js';
import { variant } from './operator-root.js';
import { type BenchRow, median, round } from './table.js';

const UPSTREAM_NOTE = '# a note the new release adds\n';

interface Copy {
  name: string;
  /** the shipped text the copy was saved against */
  v1: string;
  /** the operator's copy */
  copy: string;
  /** the shipped text of the new release (v1 unless the copy is behind) */
  v2: string;
}

/** A prepared folder: the harness the service ships from and the library root, the new release already shipped. */
interface Prepared {
  dir: string;
  copies: Copy[];
  behind: Copy[];
}

function shippedSources(): [string, string][] {
  const dir = join(harnessDir, 'templates');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => [f.slice(0, -5), readFileSync(join(dir, f), 'utf8')]);
}

/**
 * `n` shipped templates (variants of the package's own), each saved as an
 * operator copy whose purpose is its own; then a new release changes the
 * first `behind` of them (a note at the end), so those copies merge clean.
 */
async function prepare(n: number, behind: number): Promise<Prepared> {
  const dir = await mkdtemp(join(tmpdir(), 'desk-bench-upgrade-'));
  const harness = join(dir, 'harness');
  cpSync(harnessDir, harness, { recursive: true });
  const shipped = shippedSources();
  const copies: Copy[] = [];
  for (let i = 0; i < n; i++) {
    const [name, v1] = variant(shipped, i);
    const copy = v1.replace(/^ {2}purpose: (.*)$/m, (_m, p: string) => `  purpose: ${p}, as this operator keeps it`);
    copies.push({ name, v1, copy, v2: i < behind ? `${v1}\n${UPSTREAM_NOTE}` : v1 });
  }
  for (const c of copies) await writeFile(join(harness, 'templates', `${c.name}.yaml`), c.v1);
  const library = await openLibrary({ root: join(dir, 'root'), harnessDir: harness });
  try {
    for (const c of copies) await library.saveTemplate(c.name, c.copy);
    await library.history.settle();
  } finally {
    await library.close();
  }
  // the new release
  for (const c of copies.slice(0, behind)) await writeFile(join(harness, 'templates', `${c.name}.yaml`), c.v2);
  // as old as an operator's files are: younger ones are hashed again on every read, by design (entry-cache.ts)
  await new Promise((r) => setTimeout(r, RACY_MS + 100));
  return { dir, copies, behind: copies.slice(0, behind) };
}

/** A copy of the prepared folder, so a write measured on it starts from the same bytes each time. */
function copyOf(p: Prepared, into: string): { root: string; harness: string } {
  mkdirSync(into, { recursive: true });
  cpSync(p.dir, into, { recursive: true });
  return { root: join(into, 'root'), harness: join(into, 'harness') };
}

const open = (at: { root: string; harness: string }): Promise<Library> => openLibrary({ root: at.root, harnessDir: at.harness });

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Figure (a): the plan on a library just opened ÷ 100 × (merge + validate). */
async function planRow(): Promise<BenchRow> {
  const p = await prepare(1000, 100);
  try {
    const at = { root: join(p.dir, 'root'), harness: join(p.dir, 'harness') };
    const plans: number[] = [];
    const bases: number[] = [];
    // nine measured rounds: the median holds on a machine shared with other jobs
    for (let r = 0; r < 10; r++) {
      const library = await open(at);
      try {
        const catalogue = await library.catalogue();
        // the in-process work the plan is made of, for the copies behind
        const work = () => {
          for (const c of p.behind) {
            const m = threeWayMerge(c.copy, c.v1, c.v2);
            if (m.conflicts) throw new Error(`${c.name}: the bench's copy conflicts`);
            if (!validateTemplate(m.merged, { name: c.name, catalogue }).valid) throw new Error(`${c.name}: the bench's merge does not validate`);
          }
        };
        if (r === 0) work(); // warm the JIT once for both
        let behind = 0;
        const planned = () =>
          timed(async () => {
            behind = (await library.planUpgrade()).templates.filter((t) => t.outcome === 'clean').length;
          });
        // the two take turns going first: the second validates texts the first has just validated, with its caches warm
        const base0 = r % 2 === 1 ? await timed(async () => work()) : null;
        const plan = await planned();
        const base = base0 ?? (await timed(async () => work()));
        if (behind !== p.behind.length) throw new Error(`the plan has ${behind} clean copies, expected ${p.behind.length}`);
        // the first round warms both
        if (r > 0) {
          plans.push(plan);
          bases.push(base);
        }
      } finally {
        await library.close();
      }
    }
    const value = median(plans);
    const baseline = median(bases);
    const ratio = value / baseline;
    return {
      name: 'plan: 1,000 copies, 100 behind (÷ 100 × merge + validate)',
      value: round(value),
      unit: 'ms',
      baseline: round(baseline),
      baselineName: '100 × (threeWayMerge + validateTemplate)',
      ratio: round(ratio),
      goal: '≤ 1.5',
      ok: ratio <= 1.5,
    };
  } finally {
    await rm(p.dir, { recursive: true, force: true });
  }
}

/** Figure (b): an apply of 100 clean copies ÷ 100 saves of the same texts, each on a fresh copy of the root, with their history. */
async function applyRow(): Promise<BenchRow> {
  const p = await prepare(100, 100);
  const work = await mkdtemp(join(tmpdir(), 'desk-bench-upgrade-runs-'));
  try {
    const applies: number[] = [];
    const saves: number[] = [];
    for (let r = 0; r < 6; r++) {
      // interleaved: a load spike on this shared machine hits both sides alike; five measured rounds of each
      {
        const library = await open(copyOf(p, join(work, `apply-${r}`)));
        try {
          let applied = 0;
          const ms = await timed(async () => {
            applied = (await library.applyUpgrade({})).applied.length;
            await library.history.settle();
          });
          if (applied !== p.behind.length) throw new Error(`the apply upgraded ${applied} copies, expected ${p.behind.length}`);
          if (r > 0) applies.push(ms);
        } finally {
          await library.close();
        }
      }
      {
        const library = await open(copyOf(p, join(work, `save-${r}`)));
        try {
          // what the upgrade writes: the copy with the release's note
          const texts = p.behind.map((c) => [c.name, threeWayMerge(c.copy, c.v1, c.v2).merged] as const);
          const ms = await timed(async () => {
            for (const [name, text] of texts) await library.saveTemplate(name, text);
            await library.history.settle();
          });
          if (r > 0) saves.push(ms);
        } finally {
          await library.close();
        }
      }
      await rm(join(work, `apply-${r}`), { recursive: true, force: true });
      await rm(join(work, `save-${r}`), { recursive: true, force: true });
    }
    const value = median(applies);
    const baseline = median(saves);
    const ratio = value / baseline;
    return {
      name: 'apply: 100 clean copies (÷ 100 saves)',
      value: round(value),
      unit: 'ms',
      baseline: round(baseline),
      baselineName: '100 × saveTemplate',
      ratio: round(ratio),
      goal: '≤ 0.5',
      ok: ratio <= 0.5,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
    await rm(p.dir, { recursive: true, force: true });
  }
}

export async function bench(): Promise<BenchRow[]> {
  return [await planRow(), await applyRow()];
}
