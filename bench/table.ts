/**
 * One row of `npm run bench`: a figure and, where there is one, the baseline
 * measured in the same run and the goal for their ratio. Machines here are
 * noisy, so every goal is a ratio against something measured alongside it.
 */
export interface BenchRow {
  /** what is measured, e.g. "validate ticket-completion.yaml" */
  name: string;
  /** the measured figure */
  value: number;
  unit: string;
  /** the baseline's figure, same unit, same run */
  baseline?: number;
  baselineName?: string;
  /** value ÷ baseline (or baseline ÷ value for throughput — say which in `name`) */
  ratio?: number;
  /** e.g. "≤ 2.0" */
  goal?: string;
  /** whether the goal is met; undefined when there is no goal */
  ok?: boolean;
}

/** Median of a list of numbers (the list is not changed). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Runs fn repeatedly for about `ms` milliseconds (at least `min` times) and returns the median ms per call. */
export function timeIt(fn: () => unknown, ms = 200, min = 5): number {
  const samples: number[] = [];
  const until = performance.now() + ms;
  while (samples.length < min || performance.now() < until) {
    const t = performance.now();
    fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

/** timeIt for an async fn: one call after another for about `ms` milliseconds (at least `min` calls), the median ms per call. */
export async function timeAsync(fn: () => Promise<unknown>, ms = 1_000, min = 10): Promise<number> {
  const samples: number[] = [];
  const until = performance.now() + ms;
  while (samples.length < min || performance.now() < until) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

/** Rounds a figure to two decimals, as the table prints it. */
export function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** A time in ms against a baseline measured in the same run, with an absolute goal: figures rounded, ratio value ÷ baseline. */
export function msRow(row: { name: string; value: number; baseline: number; baselineName: string; goalMs: number }): BenchRow {
  return {
    name: row.name,
    value: round(row.value),
    unit: 'ms',
    baseline: round(row.baseline),
    baselineName: row.baselineName,
    ratio: round(row.value / row.baseline),
    goal: `≤ ${row.goalMs} ms`,
    ok: row.value <= row.goalMs,
  };
}
