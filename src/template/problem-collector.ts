import type { LineCounter } from 'yaml';
import { type Problem, type ProblemCode, problem } from './problems.js';

/**
 * At most this many problems of one code. A flood of errors (thousands of
 * duplicate keys, tags or stray brackets) says nothing more after the first
 * hundred, and turning each into a problem is work the attacker chooses; so
 * the reader stops at the cap (docs/format.md, Reading: no input is slow).
 */
export const MAX_PROBLEMS_PER_CODE = 100;

/** Collects reading problems with their source offsets, capped per code. */
export class ProblemCollector {
  private readonly entries: { offset: number; problem: Problem }[] = [];
  private readonly counts = new Map<ProblemCode, number>();
  /** set once some code reached MAX_PROBLEMS_PER_CODE: the caller stops reading */
  flooded = false;

  constructor(private readonly lineCounter: LineCounter) {}

  /**
   * Records a problem at a source offset (none: the problem has no position).
   * Returns false once the collector is flooded, as a signal to stop.
   */
  add(code: ProblemCode, message: string, path: string, offset?: number): boolean {
    if (this.flooded) return false;
    const n = (this.counts.get(code) ?? 0) + 1;
    this.counts.set(code, n);
    if (n === MAX_PROBLEMS_PER_CODE) {
      message += ` (reading stopped after ${n} problems of this kind)`;
      this.flooded = true;
    }
    const lc = offset === undefined ? undefined : this.lineCounter.linePos(offset);
    const pos = lc && { line: lc.line, column: lc.col };
    this.entries.push({ offset: offset ?? -1, problem: problem(code, message, path, pos) });
    return !this.flooded;
  }

  has(code: ProblemCode): boolean {
    return this.counts.has(code);
  }

  /** The problems in source order; those without a position come first. */
  sorted(): Problem[] {
    // Array.prototype.sort is stable, so problems at one offset keep their order.
    return this.entries.sort((a, b) => a.offset - b.offset).map((e) => e.problem);
  }
}
