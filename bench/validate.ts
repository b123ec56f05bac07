/**
 * Validator speed against the yaml library alone: for each shipped template,
 * the median time of `validateTemplate` ÷ the median time of a bare
 * `yaml.parseDocument` of the same text, measured in the same run. The goal is
 * that strict reading and every rule together cost at most twice the parse.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { validateTemplate } from '../src/template/validate.js';
import { type BenchRow, median } from './table.js';

function timeOnce(fn: () => unknown): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

/** The folder holding harness/: up from this file (dist/bench when compiled), else the working directory. */
function projectRoot(): string {
  for (let d = dirname(fileURLToPath(import.meta.url)); d !== dirname(d); d = dirname(d)) {
    if (existsSync(join(d, 'harness/templates'))) return d;
  }
  return process.cwd();
}

export async function bench(): Promise<BenchRow[]> {
  const project = projectRoot();
  const dir = join(project, 'harness/templates');
  const roles = new Set(readdirSync(join(project, 'harness/roles')));
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
  const catalogue = { roles, templates: new Set(files.map((f) => f.slice(0, -5))) };
  const rows: BenchRow[] = [];
  for (const file of files) {
    const source = readFileSync(join(dir, file), 'utf8');
    const name = file.slice(0, -5);
    // Warm both paths first so the JIT has settled before either is timed.
    for (let i = 0; i < 200; i++) {
      parseDocument(source);
      validateTemplate(source, { name, catalogue });
    }
    // Interleaved samples: a load spike on this shared machine hits both sides alike.
    const p: number[] = [];
    const v: number[] = [];
    for (let i = 0; i < 300; i++) {
      p.push(timeOnce(() => parseDocument(source)));
      v.push(timeOnce(() => validateTemplate(source, { name, catalogue })));
    }
    const parse = median(p);
    const validate = median(v);
    const ratio = validate / parse;
    rows.push({
      name: `validate ${file} (÷ yaml.parseDocument)`,
      value: validate,
      unit: 'ms',
      baseline: parse,
      baselineName: 'yaml.parseDocument',
      ratio,
      goal: '≤ 2.0',
      ok: ratio <= 2,
    });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await bench()) console.log(`${r.name}: ${r.value.toFixed(3)} ms vs ${r.baseline?.toFixed(3)} ms → ${r.ratio?.toFixed(2)} (${r.ok ? 'ok' : 'over'})`);
}
