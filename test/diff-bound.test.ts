/**
 * The line diff is bounded (src/template/diff.ts, LINE_DIFF_LIMITS): two valid
 * templates near the size cap whose comment lines all differ once froze the
 * process for seconds in propose, GET …/diff and a save's card. Past the bound
 * the answer says too_different and still gives the graph diff.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { App } from '../src/app.js';
import { changedLinesAtLeast, diffTemplates, LINE_DIFF_LIMITS, lineDiff } from '../src/template/diff.js';
import type { Catalogue } from '../src/template/model.js';
import { LIMITS } from '../src/template/read.js';
import { ALPHA, API, type Fixture, fixture } from './http-fixture.js';

/**
 * alpha and ~120 KB of comment lines tagged `tag`: valid and under the cap,
 * and two tags differ in every padded line (about 2,900 lines removed plus
 * added: the old unbounded diff held the loop 2-3 s here). Long lines keep the
 * validations cheap, so the delay measured is the diff's.
 */
function padded(source: string, tag: string): string {
  const lines: string[] = [];
  let size = Buffer.byteLength(source);
  for (let i = 0; size < 120_000; i++) {
    const line = `# ${tag} ${i} ${'lorem ipsum dolor sit amet '.repeat(3)}\n`;
    lines.push(line);
    size += line.length;
  }
  return source + lines.join('');
}

/**
 * The longest the event loop was blocked while `work` ran. Unbounded, the
 * diffs below held it 2-3 s; bounded, 10-170 ms on a busy 2-core machine
 * (most of it validating the two ~120 KB sides). 500 ms leaves room for a
 * loaded machine and still fails the unbounded diff five times over.
 */
async function maxLoopDelayMs(work: () => Promise<unknown>): Promise<number> {
  const resolution = 5;
  const h = monitorEventLoopDelay({ resolution });
  // The monitor records the gap between two of its timer ticks, so it must
  // have ticked before the work and tick again after it: a request answered
  // without the loop turning would otherwise show no delay at all.
  const tickedPast = async (count: number) => {
    while (h.count <= count) await new Promise((r) => setTimeout(r, resolution));
  };
  h.enable();
  try {
    await tickedPast(0);
    const before = h.count;
    await work();
    await tickedPast(before);
  } finally {
    h.disable();
  }
  return h.max / 1e6;
}
const DELAY_BOUND_MS = 500;

describe('lineDiff', () => {
  test('a small edit is diffed as before', () => {
    const d = lineDiff('a.yaml', 'b.yaml', 'x\ny\nz\n', 'x\nY\nz\n');
    expect(d).toContain('-y\n+Y\n');
  });

  test('more changed lines than the bound: null without trying', () => {
    const a = padded(ALPHA, 'a');
    const b = padded(ALPHA, 'b');
    expect(changedLinesAtLeast(a, b)).toBeGreaterThan(LINE_DIFF_LIMITS.changedLines);
    expect(lineDiff('a.yaml', 'b.yaml', a, b)).toBeNull();
  });

  test('the lower bound counts lines one side has more often, whatever the order', () => {
    expect(changedLinesAtLeast('a\nb\nc\n', 'c\nb\na\n')).toBe(0);
    expect(changedLinesAtLeast('a\na\nb\n', 'a\nb\nb\n')).toBe(2);
  });
});

describe('diffTemplates past the bound', () => {
  test('too_different, unified null, the graph diff still given', () => {
    const catalogue: Catalogue = { roles: new Set(['worker']), templates: new Set() };
    const after = padded(ALPHA.replace('profile: read_only', 'profile: web_research'), 'b');
    const d = diffTemplates({ name: 'alpha', source: padded(ALPHA, 'a') }, { name: 'alpha', source: after }, catalogue);
    expect(d).toMatchObject({ identical: false, unified: null, too_different: true });
    expect(d.graph.nodes.changed.map((n) => n.id)).toEqual(['work']);
  });
});

describe('over HTTP, the loop is never held for seconds', () => {
  let fx: Fixture;
  let app: App;
  beforeEach(async () => {
    fx = await fixture();
    await fx.ship('alpha', padded(ALPHA, 'a'));
    app = await fx.open();
    // fastify compiles a route's validators and serializers at its first
    // request, which blocks too (once, at any size): done here, not measured.
    await app.inject({ method: 'POST', url: `${API}/templates/propose`, payload: { name: 'alpha', source: ALPHA } });
    await app.inject({ url: `${API}/templates/alpha/diff?against=shipped` });
    const warm = ALPHA.replace('name: alpha', 'name: warm');
    await app.inject({ method: 'PUT', url: `${API}/templates/warm`, payload: { source: warm } });
  });
  afterEach(async () => {
    await app.close();
    await fx.cleanup();
  });

  test('propose of a very different template: too_different, the loop free', async () => {
    let res: Awaited<ReturnType<App['inject']>> | undefined;
    const delay = await maxLoopDelayMs(async () => {
      res = await app.inject({
        method: 'POST',
        url: `${API}/templates/propose`,
        payload: { name: 'alpha', source: padded(ALPHA, 'b') },
      });
    });
    expect(res?.statusCode).toBe(200);
    const card = res?.json();
    expect(card.valid).toBe(true);
    expect(card.diff).toMatchObject({ against: { name: 'alpha', kind: 'template' }, unified: null, too_different: true });
    expect(delay).toBeLessThan(DELAY_BOUND_MS);
  });

  test('a save and GET …/diff of a very different copy: too_different, the loop free', async () => {
    const delay = await maxLoopDelayMs(async () => {
      const saved = await app.inject({ method: 'PUT', url: `${API}/templates/alpha`, payload: { source: padded(ALPHA, 'b') } });
      expect(saved.statusCode).toBe(200);
      const d = await app.inject({ url: `${API}/templates/alpha/diff?against=shipped` });
      expect(d.statusCode).toBe(200);
      expect(d.json()).toMatchObject({ identical: false, unified: null, too_different: true });
    });
    expect(delay).toBeLessThan(DELAY_BOUND_MS);
  });

  test('propose over the size cap: the save refusal as a card, no diff', async () => {
    const source = ALPHA + `# ${'x'.repeat(LIMITS.sizeBytes)}\n`;
    const res = await app.inject({ method: 'POST', url: `${API}/templates/propose`, payload: { name: 'alpha', source } });
    expect(res.statusCode).toBe(200);
    const card = res.json();
    expect(card.valid).toBe(false);
    expect(card.problems.map((p: { code: string }) => p.code)).toContain('limit.size');
    expect(card.diff).toBeNull();
  });
});
