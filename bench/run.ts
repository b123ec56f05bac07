/**
 * `npm run bench`: runs every benchmark module in one process, prints one
 * table of ratios against baselines measured in the same run, and writes it
 * with the machine's description to bench/RESULTS.md.
 *
 * Each module exports `bench(): Promise<BenchRow[]>`. Run one group with
 * `npm run bench -- validate hostile`.
 */
import { writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import type { BenchRow } from './table.js';

const GROUPS = ['validate', 'hostile', 'diff', 'library', 'http', 'mcp', 'launch', 'page', 'history', 'sync', 'upgrade', 'idle'] as const;
/** Run only when named: `list` and `saves` are the library group's list and memory rows, and its save rows, alone. */
const NAMED_ONLY = ['list', 'saves'] as const;

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const groups: string[] = wanted.length ? [...GROUPS, ...NAMED_ONLY].filter((g) => wanted.includes(g)) : [...GROUPS];
  const sections: string[] = [];
  let misses = 0;
  for (const group of groups) {
    let mod: { bench: () => Promise<BenchRow[]> };
    try {
      mod = await import(`./${group}.js`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
      console.log(`(no ${group} benchmark)`);
      continue;
    }
    process.stdout.write(`running ${group}…\n`);
    const rows = await mod.bench();
    misses += rows.filter((r) => r.ok === false).length;
    const table = renderTable(rows);
    console.log(`\n## ${group}\n\n${table}`);
    sections.push(`## ${group}\n\n${table}`);
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`;
  const doc = [
    '# Benchmark results',
    '',
    `Made by \`npm run bench${wanted.length ? ' -- ' + wanted.join(' ') : ''}\` on ${new Date().toISOString().slice(0, 10)}.`,
    `Machine: ${machine}.`,
    'Every ratio is against a baseline measured in the same run; absolute times vary with the machine.',
    '',
    ...sections,
    '',
  ].join('\n');
  if (!wanted.length) await writeFile(join(packageRoot, 'bench', 'RESULTS.md'), doc);
  console.log(misses ? `\n${misses} goal(s) missed` : '\nall goals met');
}

function fmt(n: number | undefined, digits = 3): string {
  if (n === undefined) return '';
  if (n === 0) return '0';
  const a = Math.abs(n);
  return a >= 100 ? n.toFixed(0) : a >= 1 ? n.toFixed(2) : n.toPrecision(digits);
}

export function renderTable(rows: BenchRow[]): string {
  const head = '| measure | value | baseline | ratio | goal | met |\n|---|---:|---|---:|---|---|';
  const body = rows.map(
    (r) =>
      `| ${r.name} | ${fmt(r.value)} ${r.unit} | ${r.baselineName ? `${r.baselineName}: ${fmt(r.baseline)} ${r.unit}` : ''} | ${fmt(r.ratio)} | ${r.goal ?? ''} | ${r.ok === undefined ? '' : r.ok ? 'yes' : '**no**'} |`,
  );
  return [head, ...body].join('\n');
}

await main();
