// What the operator must see where a launch is decided (docs/api.md, Launch
// preview): an unbounded loop warned again by the preview, so by a draft and
// its approval screen too; and an optional input given "" or [] counted as
// absent, its default filling it, else its hole kept and listed.
import { describe, expect, test } from 'vitest';
import { previewLaunch } from '../src/template/launch.js';
import { API, openApp } from './http-fixture.js';
import { kinds, modelOf } from './launch-fixtures.js';

/** Valid, with one warning at save: its work → checks → work loop has no gate and no max_visits (loop.unbounded). */
const LOOPING = `template:
  name: looping
  purpose: work each ticket until its checks pass, then ask
  inputs:
    - { name: tickets, required: true, type: list }
  writes: true
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker, profile: read_only, prompt: "fix {{inputs.tickets}}" }
  checks: { type: builtin, builtin: checks }
  gate: { type: builtin, builtin: human_gate, prompt: "approve?" }
cords:
  - { from: work.done, to: checks.in }
  - { from: checks.failed, to: work.start }
  - { from: checks.passed, to: gate.in }
`;
const TICKETS = { tickets: ['DESK-1', 'DESK-2'] };

describe('an unbounded loop, warned again by the launch preview', () => {
  test('a warning at /nodes/<first node>, ok unchanged, the runs still there', () => {
    const r = previewLaunch(modelOf(LOOPING), TICKETS);
    expect(r.ok).toBe(true);
    expect(r.runs).toHaveLength(1);
    expect(r.problems.map((p) => [p.code, p.severity, p.path])).toEqual([['loop.unbounded', 'warning', '/nodes/work']]);
  });

  test('beside input errors: ok false for them, the warning kept', () => {
    const r = previewLaunch(modelOf(LOOPING), {});
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => p.code).sort()).toEqual(['input.missing', 'loop.unbounded']);
  });

  test('a bounded loop adds nothing', () => {
    const bounded = LOOPING.replace('profile: read_only,', 'profile: read_only, max_visits: 3,');
    expect(bounded).not.toBe(LOOPING);
    expect(previewLaunch(modelOf(bounded), TICKETS).problems).toEqual([]);
  });
});

describe('over HTTP: the preview, the draft and what its approval screen reads', () => {
  const ctx = openApp('file');

  test('each carries the warning and stays ok', async () => {
    const put = await ctx.app.inject({ method: 'PUT', url: `${API}/templates/looping`, payload: { source: LOOPING } });
    expect(put.statusCode, put.body).toBe(200);
    const warned = (preview: { ok: boolean; problems: { code: string; severity: string }[] }) => {
      expect(preview.ok).toBe(true);
      expect(preview.problems.filter((p) => p.code === 'loop.unbounded').map((p) => p.severity)).toEqual(['warning']);
    };

    const pre = await ctx.app.inject({ method: 'POST', url: `${API}/templates/looping/launch-preview`, payload: { inputs: TICKETS } });
    expect(pre.statusCode).toBe(200);
    warned(pre.json());

    const draft = await ctx.app.inject({ method: 'POST', url: `${API}/launches`, payload: { template: 'looping', inputs: TICKETS } });
    expect(draft.statusCode, draft.body).toBe(201);
    warned(draft.json().preview);

    // the approval screen shows the draft as GET answers it
    const shown = await ctx.app.inject({ url: `${API}/launches/${draft.json().id}` });
    expect(shown.statusCode).toBe(200);
    warned(shown.json().preview);
  });
});

describe('an optional input given "" or [] counts as absent', () => {
  // `motto` an optional string with a default, `aside` one without; `notes` an optional list without
  const model = modelOf(
    kinds('    - { name: motto, type: string, default: steady }\n    - { name: aside, type: string }\n').replace('run={{run.id}}', 'motto={{inputs.motto}} aside={{inputs.aside}}'),
  );
  const work = (r: ReturnType<typeof previewLaunch>) => r.runs[0]!.nodes.find((n) => n.id === 'work')!;

  test('its default fills it', () => {
    const r = previewLaunch(model, { goal: 'fix', count: 2, motto: '', budget: '' });
    expect(r.problems).toEqual([]);
    expect(r.runs[0]!.inputs).toMatchObject({ motto: 'steady', budget: 1.5 });
    expect(work(r).prompt).toContain('motto=steady');
  });

  test('without a default, its {{…}} stays visible and is listed under holes', () => {
    const r = previewLaunch(model, { goal: 'fix', count: 2, aside: '', notes: [] });
    expect(r.ok).toBe(true);
    expect(r.runs[0]!.inputs).not.toHaveProperty('aside');
    expect(r.runs[0]!.inputs).not.toHaveProperty('notes');
    expect(work(r).prompt).toContain('aside={{inputs.aside}}');
    expect(work(r).prompt).toContain('notes={{inputs.notes}}');
    expect(work(r).holes).toEqual(['notes', 'aside']);
  });

  test('a required input keeps its rule: [] is missing, "" is a value', () => {
    const required = modelOf(kinds().replace('{ name: goal, required: true, type: string, one_of: [fix, explain] }', '{ name: goal, required: true, type: string }'));
    const r = previewLaunch(required, { goal: '' });
    expect(r.ok).toBe(true);
    expect(work(r).prompt).toMatch(/^goal= budget/);
    expect(work(r).holes).not.toContain('goal');
  });
});
