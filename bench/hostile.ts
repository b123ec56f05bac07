/**
 * "No input is slow" (docs/format.md, Reading): readSource on each hostile
 * shape at the 128 KiB cap, against yaml's default `parseDocument` on the same
 * input measured in the same run. The goal is absolute (≤ 250 ms a read);
 * the ratio shows what the pre-scan and hardened options save.
 */
import { parseDocument } from 'yaml';
import { readSource } from '../src/template/read.js';
import { HOSTILE_SHAPES } from '../test/fixtures/hostile/shapes.js';
import { type BenchRow, median, msRow, timeIt } from './table.js';

const GOAL_MS = 250;
/** yaml's defaults take seconds on some shapes; one run of each says enough. */
const BASELINE_RUNS = 1;

function baselineMs(source: string): number {
  const samples: number[] = [];
  for (let i = 0; i < BASELINE_RUNS; i++) {
    const t = performance.now();
    try {
      parseDocument(source);
    } catch {
      // yaml throws on some hostile input (deep nesting); the time until then still counts
    }
    samples.push(performance.now() - t);
  }
  return median(samples);
}

export async function bench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const shape of HOSTILE_SHAPES) {
    const source = shape.source();
    // A few reads before timing, so the figure is the steady state, not the JIT warming up.
    for (let i = 0; i < 3; i++) readSource(source);
    const value = timeIt(() => readSource(source), 300, 7);
    const baseline = baselineMs(source);
    rows.push(msRow({ name: `read hostile input: ${shape.name}`, value, baseline, baselineName: 'yaml parseDocument, default options', goalMs: GOAL_MS }));
  }
  return rows;
}
