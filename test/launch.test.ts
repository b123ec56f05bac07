// Launch previews in the format layer (src/template/launch.ts): every launch
// code with a near miss, defaults, fan-out, and folding as data. Asserts codes,
// paths, counts and folded text, never message wording.
import { describe, expect, test } from 'vitest';
import { LAUNCH_CODES, MAX_RUNS, previewLaunch } from '../src/template/launch.js';
import { kinds, modelOf, shippedModel } from './launch-fixtures.js';

const KINDS = modelOf(kinds());
const preview = (inputs: Record<string, unknown>, model = KINDS) => previewLaunch(model, inputs);
const found = (inputs: Record<string, unknown>, model = KINDS) => preview(inputs, model).problems.map((p) => `${p.code} ${p.path}`);
const workPrompt = (r: ReturnType<typeof preview>, run = 0) => r.runs[run]?.nodes.find((n) => n.id === 'work')?.prompt;

describe('input checks, one trigger and one near miss per code', () => {
  const ok = { goal: 'fix' };
  test.each<[string, string, Record<string, unknown>, Record<string, unknown>]>([
    ['input.unknown', '/inputs/colour', { ...ok, colour: 'red' }, ok],
    ['input.missing', '/inputs/goal', {}, ok],
    ['input.type', '/inputs/budget', { ...ok, budget: '3' }, { ...ok, budget: 3 }],
    ['input.type', '/inputs/count', { ...ok, count: 2.5 }, { ...ok, count: 2 }],
    ['input.type', '/inputs/count', { ...ok, count: 2 ** 60 }, { ...ok, count: 2 ** 52 }],
    ['input.type', '/inputs/dry', { ...ok, dry: 'yes' }, { ...ok, dry: true }],
    ['input.type', '/inputs/goal', { goal: null }, ok],
    ['input.type', '/inputs/notes', { ...ok, notes: 'a' }, { ...ok, notes: ['a'] }],
    ['input.type', '/inputs/notes/1', { ...ok, notes: ['a', { b: 1 }] }, { ...ok, notes: ['a', 1, true] }],
    ['input.type', '/inputs/budget', { ...ok, budget: Number.POSITIVE_INFINITY }, { ...ok, budget: 1e300 }],
    ['input.one_of', '/inputs/goal', { goal: 'Fix' }, { goal: 'explain' }],
    ['input.introduces_machinery', '/inputs/goal', { goal: 'fix' }, ok],
    ['input.introduces_machinery', '/inputs/notes', { ...ok, notes: ['{{ run.id }}'] }, { ...ok, notes: ['{ {x} }', '}} {{'] }],
    ['input.introduces_machinery', '/inputs/notes', { ...ok, notes: [':::warning'] }, { ...ok, notes: [':: a :', 'b::'] }],
  ])('%s at %s', (code, path, trigger, near) => {
    // the one_of'd goal cannot carry braces: the machinery case goes through notes or a free string
    if (code === 'input.introduces_machinery' && path === '/inputs/goal') {
      const free = modelOf(kinds().replace(', one_of: [fix, explain]', ''));
      expect(found({ goal: 'x {{inputs.notes}} y' }, free)).toContain(`${code} ${path}`);
      expect(found({ goal: 'x {inputs.notes} y' }, free).filter((p) => p.startsWith(code))).toEqual([]);
      return;
    }
    expect(found(trigger)).toContain(`${code} ${path}`);
    expect(found(near).filter((p) => p.startsWith(`${code} `))).toEqual([]);
  });

  test('input.too_many_runs past the cap, not at it', () => {
    const quick = shippedModel('quick-fix');
    const list = (n: number) => Array.from({ length: n }, (_, i) => `T-${i}`);
    const over = preview({ tickets: list(MAX_RUNS + 1) }, quick);
    expect(over.problems.map((p) => `${p.code} ${p.path}`)).toEqual(['input.too_many_runs /inputs/tickets']);
    expect(over.ok).toBe(false);
    expect(over.runs).toEqual([]);
    const at = preview({ tickets: list(MAX_RUNS) }, quick);
    expect(at.ok).toBe(true);
    expect(at.runs).toHaveLength(MAX_RUNS);
  });

  test('input.runs_conflict when two lists both say each; one each is fine', () => {
    const two = modelOf(kinds('    - { name: more, type: list, runs: each }\n').replace('name: notes, type: list', 'name: notes, type: list, runs: each'));
    expect(found({ goal: 'fix', notes: ['a'], more: ['b'] }, two)).toContain('input.runs_conflict /inputs/more');
    const one = modelOf(kinds('    - { name: more, type: list, runs: together }\n').replace('name: notes, type: list', 'name: notes, type: list, runs: each'));
    const r = preview({ goal: 'fix', notes: ['a', 'b'], more: ['c'] }, one);
    expect(r.problems).toEqual([]);
    expect(r.runs.map((x) => x.inputs.notes)).toEqual([['a'], ['b']]);
  });

  test('input.too_large past the folded size cap, counted before folding; a big value once is fine', () => {
    const many = modelOf(kinds().replace('prompt: "goal=', `prompt: "${'{{inputs.goal}}'.repeat(2000)} goal=`).replace(', one_of: [fix, explain]', ''));
    const big = 'x'.repeat(2 ** 20);
    expect(found({ goal: big }, many)).toEqual(['input.too_large /inputs/goal']);
    const r = preview({ goal: big }, modelOf(kinds().replace(', one_of: [fix, explain]', '')));
    expect(r.ok).toBe(true);
    expect(r.problems).toEqual([]);
  });

  test('every problem at once, in one answer', () => {
    const r = preview({ goal: 'Fix', budget: 'x', dry: 1, colour: 1 });
    expect(r.problems.map((p) => p.code).sort()).toEqual(['input.one_of', 'input.type', 'input.type', 'input.unknown']);
    expect(r.ok).toBe(false);
    expect(r.runs).toEqual([]);
  });

  test('the launch codes are the ones listed', () => {
    const seen = new Set(['input.unknown', 'input.missing', 'input.type', 'input.one_of', 'input.introduces_machinery', 'input.too_many_runs', 'input.runs_conflict', 'input.too_large']);
    expect(new Set(LAUNCH_CODES)).toEqual(seen);
  });

  test('an empty required list is missing; an empty optional one is not', () => {
    expect(found({ tickets: [] }, shippedModel('quick-fix'))).toEqual(['input.missing /inputs/tickets']);
    expect(found({ goal: 'fix', notes: [] })).toEqual([]);
  });
});

describe('defaults and folding', () => {
  test('defaults fill what is absent; an absent optional input keeps its hole, marked', () => {
    const r = preview({ goal: 'fix', count: 3 });
    expect(r.ok).toBe(true);
    expect(r.runs).toHaveLength(1);
    expect(r.runs[0]?.inputs).toEqual({ goal: 'fix', budget: 1.5, count: 3, dry: false });
    // spaces inside the braces fold too; a placeholder of another kind stays; `notes` has no value: its hole stays
    expect(workPrompt(r)).toBe('goal=fix budget=1.5 count=3 dry=false notes={{inputs.notes}} run={{run.id}}');
    expect(r.runs[0]?.nodes.find((n) => n.id === 'work')?.holes).toEqual(['notes']);
    expect(r.runs[0]?.nodes.find((n) => n.id === 'gate')?.holes).toEqual([]);
    // given [], an optional input counts as absent: no default, so its hole stays, listed
    const given = preview({ goal: 'fix', count: 3, notes: [] });
    expect(given.runs[0]?.inputs).toEqual(r.runs[0]?.inputs);
    expect(workPrompt(given)).toBe(workPrompt(r));
    expect(given.runs[0]?.nodes.find((n) => n.id === 'work')?.holes).toEqual(['notes']);
    expect(r.runs[0]?.nodes.find((n) => n.id === 'gate')?.prompt).toBe('approve fix?');
    expect(r.runs[0]?.nodes.find((n) => n.id === 'checks')?.prompt).toBeNull();
  });

  test('a list folds one item per line', () => {
    expect(workPrompt(preview({ goal: 'fix', notes: ['a', 2, true] }))).toContain('notes=a\n2\ntrue run=');
  });

  const FREE = modelOf(kinds().replace(', one_of: [fix, explain]', ''));
  /** the guard's problems, one line per path (a problem is per input and node) */
  const guard = (r: ReturnType<typeof preview>) => [...new Set(r.problems.filter((p) => p.code === 'input.introduces_machinery').map((p) => `${p.path} ${p.severity}`))];

  test('a value reading {{inputs.other}} is refused: no runs, an error at the input', () => {
    const r = preview({ goal: '{{inputs.notes}}', notes: ['SECRET'] }, FREE);
    expect(r.ok).toBe(false);
    expect(r.runs).toEqual([]);
    expect(guard(r)).toEqual(['/inputs/goal error']);
  });

  test('a value repeating a placeholder the template already has is refused too (counted, not looked up)', () => {
    expect(guard(preview({ goal: 'see {{run.id}}' }, FREE))).toEqual(['/inputs/goal error']);
  });

  test('one problem per input and node: the work prompt and the gate both fold goal', () => {
    const r = preview({ goal: '{{run.secret}}' }, FREE);
    expect(r.problems.filter((p) => p.code === 'input.introduces_machinery')).toHaveLength(2);
  });

  test("a value that forms a placeholder with the prompt's own braces is refused", () => {
    const source = kinds()
      .replace(', one_of: [fix, explain]', '')
      .replace('prompt: "goal={{inputs.goal}}', 'prompt: "goal={{{{inputs.goal}}}}');
    expect(guard(preview({ goal: 'inputs.notes', notes: ['SECRET'] }, modelOf(source)))).toEqual(['/inputs/goal error']);
  });

  test("a value that makes a fence with the prompt's own colons is refused; beside them, it is not", () => {
    const source = kinds()
      .replace(', one_of: [fix, explain]', '')
      .replace('prompt: "goal={{inputs.goal}}', 'prompt: "goal=::{{inputs.goal}}');
    const m = modelOf(source);
    expect(guard(preview({ goal: ':note' }, m))).toEqual(['/inputs/goal error']);
    expect(guard(preview({ goal: ' :note' }, m))).toEqual([]);
  });

  test('a ticket fanned out names the item of its run', () => {
    const r = preview({ tickets: ['T-1', 'T-2 {{run.secret}}'] }, shippedModel('quick-fix'));
    expect(r.ok).toBe(false);
    expect(guard(r)).toEqual(['/inputs/tickets/1 error']);
  });

  test('braces and colons that form nothing are data, folded as they are', () => {
    const r = preview({ goal: 'a { b } :: c }} {{', notes: ['x: y'] }, FREE);
    expect(r.ok).toBe(true);
    expect(workPrompt(r)).toContain('goal=a { b } :: c }} {{ budget=');
  });

  test('each node carries what it can touch, as the card shows it', () => {
    const r = preview({ tickets: ['T-1'] }, shippedModel('quick-fix'));
    const work = r.runs[0]?.nodes.find((n) => n.id === 'work');
    expect(work?.touches).toEqual(['workspace.read', 'workspace.write', 'shell.run']);
    expect(r.runs[0]?.nodes.map((n) => n.id)).toEqual(['intake', 'work', 'checks', 'gate', 'land', 'completion_proof', 'close']);
  });
});

describe('runs', () => {
  test('a ticket template launches one run per ticket, each with one ticket', () => {
    const r = preview({ tickets: ['a', 'b', 'c'] }, shippedModel('quick-fix'));
    expect(r.ok).toBe(true);
    expect(r.runs.map((x) => x.index)).toEqual([0, 1, 2]);
    expect(r.runs.map((x) => x.inputs)).toEqual([{ tickets: ['a'] }, { tickets: ['b'] }, { tickets: ['c'] }]);
    expect(workPrompt(r, 1)).toMatch(/^Fix b with/);
  });

  test('batch says runs: together, so its tickets are one run', () => {
    const r = preview({ tickets: ['a', 'b', 'c'] }, shippedModel('batch'));
    expect(r.ok).toBe(true);
    expect(r.runs).toHaveLength(1);
    expect(r.runs[0]?.inputs).toEqual({ tickets: ['a', 'b', 'c'] });
    expect(r.runs[0]?.nodes.find((n) => n.id === 'intake')?.prompt).toContain('tickets a\nb\nc.');
  });
});
