import { describe, expect, it } from 'vitest';
import { errorCount, lineCount, marksByLine, offsetOf, position, skeleton, sortProblems } from '../../src/web/format.js';
import { BOX, depths, layout, splitEnd } from '../../src/web/layout.js';
import { ENTRY_STATES } from '../../src/schema/state.js';
import { CHIP_ORDER, canReset, rowLabel, STATES } from '../../src/web/states.js';
import type { Problem } from '../../src/schema/errors.js';

const nodes = (...ids: string[]) => ids.map((id) => ({ id }));
const cord = (from: string, to: string) => ({ from, to });

describe('graph layout', () => {
  // intake → work → checks → gate → land; checks.failed loops back to work; orphan unreachable
  const input = {
    nodes: nodes('intake', 'work', 'checks', 'gate', 'land', 'orphan'),
    cords: [
      cord('intake.done', 'work.start'),
      cord('work.done', 'checks.in'),
      cord('checks.passed', 'gate.in'),
      cord('checks.failed', 'work.revise'),
      cord('gate.approved', 'land.in'),
    ],
    entry: 'intake',
  };

  it('puts each node in the column of its BFS depth from the entry', () => {
    const d = depths(input);
    expect(Object.fromEntries(d)).toEqual({ intake: 0, work: 1, checks: 2, gate: 3, land: 4 });
    const l = layout(input);
    const col = Object.fromEntries(l.nodes.map((n) => [n.id, n.col]));
    expect(col).toMatchObject({ intake: 0, work: 1, checks: 2, gate: 3, land: 4 });
    expect(l.nodes.find((n) => n.id === 'work')!.x).toBe(BOX.pad + BOX.width + BOX.colGap);
  });

  it('puts unreachable nodes in one column after the deepest, marked', () => {
    const orphan = layout(input).nodes.find((n) => n.id === 'orphan')!;
    expect(orphan.col).toBe(5);
    expect(orphan.reachable).toBe(false);
  });

  it('draws a loop back as a back cord and forward cords left to right', () => {
    const l = layout(input);
    const back = l.cords.find((c) => c.outlet === 'failed')!;
    expect(back).toMatchObject({ from: 'checks', to: 'work', inlet: 'revise', back: true });
    const fwd = l.cords.find((c) => c.outlet === 'passed')!;
    expect(fwd.back).toBe(false);
    expect(fwd.d.startsWith(`M${BOX.pad + 2 * (BOX.width + BOX.colGap) + BOX.width},`)).toBe(true);
  });

  it('labels two outlets of one node going to different rows apart, not over each other', () => {
    const l = layout({ nodes: nodes('gate', 'land', 'back'), cords: [cord('gate.approved', 'land.in'), cord('gate.rejected', 'back.in')], entry: 'gate' });
    const [a, b] = ['approved', 'rejected'].map((o) => l.cords.find((c) => c.outlet === o)!.label);
    // a label is about 12 px tall: a row apart or more
    expect(Math.abs(a!.y - b!.y)).toBeGreaterThanOrEqual(BOX.height / 2);
  });

  it('stacks fan-out targets in one column in BFS order and sizes the drawing to hold every box', () => {
    const l = layout({ nodes: nodes('a', 'b', 'c'), cords: [cord('a.done', 'c.in'), cord('a.done', 'b.in')], entry: 'a' });
    const byId = Object.fromEntries(l.nodes.map((n) => [n.id, n]));
    expect([byId.c!.col, byId.c!.row, byId.b!.col, byId.b!.row]).toEqual([1, 0, 1, 1]);
    for (const n of l.nodes) {
      expect(n.x + BOX.width).toBeLessThanOrEqual(l.width);
      expect(n.y + BOX.height).toBeLessThanOrEqual(l.height);
    }
  });

  it('starts from the first node when the entry is unknown, and skips cords to unknown nodes', () => {
    const l = layout({ nodes: nodes('x', 'y'), cords: [cord('x.done', 'nowhere.in'), cord('x.done', 'y.in')], entry: 'missing' });
    expect(l.nodes.map((n) => [n.id, n.col])).toEqual([['x', 0], ['y', 1]]);
    expect(l.cords).toHaveLength(1);
    expect(layout({ nodes: [], cords: [], entry: null }).nodes).toEqual([]);
  });

  it('splits a cord end at the first dot', () => {
    expect(splitEnd('work.done')).toEqual(['work', 'done']);
    expect(splitEnd('bare')).toEqual(['bare', '']);
  });
});

describe('problem formatting', () => {
  const p = (code: string, severity: 'error' | 'warning', line?: number, column?: number): Problem => ({
    code,
    severity,
    message: 'm',
    path: '',
    ...(line ? { line } : {}),
    ...(column ? { column } : {}),
  });

  it('writes positions as line:col, and a dash without one', () => {
    expect(position(p('a', 'error', 12, 5))).toBe('12:5');
    expect(position(p('a', 'error', 3))).toBe('3');
    expect(position(p('a', 'error'))).toBe('—');
  });

  it('sorts by line then column, whole-file problems first', () => {
    const sorted = sortProblems([p('c', 'error', 9, 1), p('a', 'error'), p('b', 'warning', 2, 7), p('d', 'error', 2, 3)]);
    expect(sorted.map((x) => x.code)).toEqual(['a', 'd', 'b', 'c']);
  });

  it('marks each line with its worst severity', () => {
    const m = marksByLine([p('w', 'warning', 4), p('e', 'error', 4), p('w2', 'warning', 4), p('w3', 'warning', 6)]);
    expect([...m]).toEqual([[4, 'error'], [6, 'warning']]);
    expect(errorCount([p('w', 'warning', 4), p('e', 'error', 4)])).toBe(1);
  });

  it('finds the offset of a line and column, clamped to the line', () => {
    const text = 'ab\ncdef\n\ng';
    expect(offsetOf(text, 1)).toBe(0);
    expect(offsetOf(text, 2, 3)).toBe(5);
    expect(offsetOf(text, 2, 99)).toBe(7);
    expect(offsetOf(text, 4)).toBe(9);
    expect(offsetOf(text, 40)).toBe(text.length);
    expect(lineCount(text)).toBe(4);
    expect(lineCount('')).toBe(1);
  });

  it('writes a skeleton that carries the name and a one-line purpose', () => {
    const src = skeleton('my-thing', 'line one\nline two');
    expect(src).toMatch(/^ {2}name: my-thing$/m);
    expect(src).toMatch(/^ {2}purpose: "line one line two"$/m);
  });
});

describe('states', () => {
  it('says the sentence for each state', () => {
    expect(STATES.same_as_shipped.sentence).toBe('same as shipped — it only freezes the copy; reset it');
    // every state the service answers has words, and only those
    expect(new Set(Object.keys(STATES))).toEqual(new Set(ENTRY_STATES));
    expect(new Set(CHIP_ORDER)).toEqual(new Set(Object.keys(STATES)));
  });

  it('names rows for assistive tech and tests', () => {
    expect(rowLabel('template', 'quick-fix', 'shipped')).toBe('template quick-fix, shipped');
    expect(rowLabel('role', 'worker', 'same_as_shipped')).toBe('role worker, same as shipped');
    expect(rowLabel('template', 'batch', 'edited', true)).toBe('template batch, edited, edited outside');
  });

  it('offers reset only where a copy of something shipped exists', () => {
    expect(canReset('edited', true)).toBe(true);
    expect(canReset('stale', true)).toBe(true);
    expect(canReset('shipped', true)).toBe(false);
    expect(canReset('custom', false)).toBe(false);
    expect(canReset('read_only', true)).toBe(false);
  });
});
