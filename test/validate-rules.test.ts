// Rules beyond one trigger per code (validate-codes.test.ts):
// every way a node may mutate tickets, loops and their bounds, how a list
// input launches, reserved names, and the shipped templates held to them with
// the roles' kits as the library checks them.
import { describe, expect, test } from 'vitest';
import { inputRuns, type Catalogue } from '../src/template/model.js';
import { templateJsonSchema } from '../src/template/schema.js';
import { codes, edit, QUICK, RESEARCH, shipped, shippedCatalogue, TICKET_CLOSE, validate } from './fixtures/templates/helpers.js';

const KITS: Catalogue['kits'] = new Map([
  ['ticket_close', ['tickets.read', 'tickets.update']],
  ['verifier', ['tickets.read', 'web.fetch', 'workspace.read']],
]);
const withKits = { catalogue: { roles: new Set(['ticket_intake', 'worker', 'ticket_close', 'researcher', 'verifier']), templates: new Set(['ticket-completion', 'research']), kits: KITS } };
/** ticket-close with its proof no longer over complete_ticket: nothing proves the ticket */
const UNPROVEN = edit(TICKET_CLOSE, 'over: complete_ticket', 'over: land_workspace');
const mutation = (source: string, opts = withKits) => validate(source, opts).problems.filter((p) => p.code === 'ticket.mutation_unproven');

describe('may mutate tickets', () => {
  test("a read_only node whose role's kit grants tickets.update, with no proof, is refused at its role", () => {
    const source = edit(UNPROVEN, 'profile: ticket_write', 'profile: read_only');
    const found = mutation(source);
    expect(found.map((p) => [p.path, p.line])).toEqual([['/nodes/close/role', 14]]);
    expect(validate(source, withKits).valid).toBe(false);
    // the same node without kits known validates: the kit is what makes it mutate
    expect(mutation(source, { catalogue: { ...withKits.catalogue, kits: new Map() } })).toEqual([]);
  });

  test('near miss: the same node with the proof in place, or a kit that only reads tickets', () => {
    expect(mutation(edit(TICKET_CLOSE, 'profile: ticket_write', 'profile: read_only'))).toEqual([]);
    const readsOnly = { catalogue: { ...withKits.catalogue, kits: new Map([['ticket_close', ['tickets.read']]]) } };
    expect(mutation(edit(UNPROVEN, 'profile: ticket_write', 'profile: read_only'), readsOnly)).toEqual([]);
  });

  test('a tool node naming tickets.update, with no proof, is refused at its tool; tickets.read is not', () => {
    const source = edit(UNPROVEN, '  close: { type: model, role: ticket_close, profile: ticket_write }', '  close: { type: tool, tool: tickets.update }');
    expect(mutation(source).map((p) => p.path)).toEqual(['/nodes/close/tool']);
    expect(mutation(edit(source, 'tool: tickets.update', 'tool: tickets.read'))).toEqual([]);
  });

  test('a ticket_write profile is still reported at its profile', () => {
    expect(mutation(UNPROVEN).map((p) => p.path)).toEqual(['/nodes/close/profile']);
  });

  test('a kit granting workspace.write makes writes: false dishonest; a kit that reads does not', () => {
    const source = graph(model('a'), '  []\n');
    const kits = (tools: string[]) => ({ catalogue: { ...withKits.catalogue, kits: new Map([['worker', tools]]) } });
    expect(codes(validate(source, kits(['workspace.write'])).problems)).toEqual(['declare.writes']);
    expect(codes(validate(source, kits(['workspace.read'])).problems)).toEqual([]);
  });

  test("what a node can touch includes its role kit's tools, after the profile's, once each", () => {
    const t = validate(TICKET_CLOSE, withKits).template;
    const close = t?.nodes.find((n) => n.id === 'close');
    expect(close?.kit).toEqual(['tickets.read', 'tickets.update']);
    expect(close?.touches).toEqual(['tickets.read', 'tickets.write', 'tickets.update']);
    const read = t?.nodes.find((n) => n.id === 'read');
    expect(read?.touches).toEqual(['workspace.read', 'tickets.read', 'web.fetch']);
  });
});

/** A small non-ticket template over the given nodes and cords, entry `a.start`. */
const graph = (nodes: string, cords: string) =>
  `template:\n  name: loops\n  purpose: loops\n  entry: a\n  inlet: start\nversion: 1\nnodes:\n${nodes}cords:\n${cords}`;
const model = (id: string, extra = '') => `  ${id}: { type: model, role: worker, profile: read_only${extra} }\n`;
const loopWarnings = (source: string) => validate(source).problems.filter((p) => p.code === 'loop.unbounded');

describe('loops are bounded', () => {
  const abc = model('a') + model('b') + model('c');
  const cycle = '  - { from: a.done, to: b.start }\n  - { from: b.done, to: c.start }\n  - { from: c.done, to: a.start }\n';

  test('an unbounded cycle is warned once, naming it, at its first node', () => {
    const [w, ...rest] = loopWarnings(graph(abc, cycle));
    expect(rest).toEqual([]);
    expect(w).toMatchObject({ severity: 'warning', path: '/nodes/a', line: 8, column: 3 });
    expect(w?.message).toContain('a → b → c → a');
    expect(validate(graph(abc, cycle)).valid).toBe(true);
  });

  test('max_visits on any node of the cycle bounds it, and the model lists the loop with its bound', () => {
    const source = graph(model('a') + model('b', ', max_visits: 4') + model('c'), cycle);
    expect(loopWarnings(source)).toEqual([]);
    expect(validate(source).template?.loops).toEqual([{ cycle: ['a', 'b', 'c', 'a'], nodes: ['a', 'b', 'c'], bounds: [{ node: 'b', max_visits: 4 }], bounded: true }]);
  });

  test('a human gate on the cycle breaks it', () => {
    const source = graph(abc.replace(model('c'), '  c: { type: builtin, builtin: human_gate }\n'), cycle.replace('c.start', 'c.in').replace('c.done', 'c.rejected'));
    expect(loopWarnings(source)).toEqual([]);
    expect(validate(source).template?.loops).toEqual([]);
  });

  test("a for_each's next cord is bounded by the list; a cycle beside it is not", () => {
    const nodes = model('a') + '  each: { type: builtin, builtin: for_each }\n' + model('w') + model('fix');
    const cords = '  - { from: a.done, to: each.items }\n  - { from: each.item, to: w.start }\n  - { from: w.done, to: each.next }\n';
    expect(loopWarnings(graph(nodes, cords))).toEqual([]);
    const beside = `${cords}  - { from: each.done, to: fix.start }\n  - { from: fix.done, to: each.items }\n`;
    expect(loopWarnings(graph(nodes, beside)).map((p) => p.message)).toEqual([expect.stringContaining('each → fix → each')]);
  });

  test('a node wired to itself is a loop', () => {
    expect(loopWarnings(graph(model('a'), '  - { from: a.done, to: a.start }\n')).map((p) => p.path)).toEqual(['/nodes/a']);
  });

  test('a bound on one cycle does not bound another cycle of the same loop', () => {
    // a → b → a is bounded at b; a → c → a passes no bound
    const nodes = model('a') + model('b', ', max_visits: 2') + model('c');
    const cords = '  - { from: a.done, to: b.start }\n  - { from: b.done, to: a.start }\n  - { from: a.done, to: c.start }\n  - { from: c.done, to: a.start }\n';
    const r = validate(graph(nodes, cords));
    expect(loopWarnings(graph(nodes, cords)).map((p) => p.message)).toEqual([expect.stringContaining('a → c → a')]);
    expect(r.template?.loops).toMatchObject([{ nodes: ['a', 'b', 'c'], bounds: [{ node: 'b', max_visits: 2 }], bounded: false, cycle: ['a', 'c', 'a'] }]);
  });

  test('max_visits is a positive integer, on model and builtin nodes only', () => {
    const at = (source: string) => validate(source).problems.map((p) => `${p.code} ${p.path}`);
    expect(at(edit(QUICK, 'max_visits: 5', 'max_visits: 0'))).toContain('type.mismatch /nodes/checks/max_visits');
    expect(at(edit(QUICK, 'max_visits: 5', 'max_visits: lots'))).toContain('type.mismatch /nodes/checks/max_visits');
    expect(at(edit(RESEARCH, 'tool: web.fetch }', 'tool: web.fetch, max_visits: 2 }'))).toContain('tool.extra_key /nodes/fetch/max_visits');
    expect(validate(edit(QUICK, 'max_visits: 5', 'max_visits: 1')).problems).toEqual([]);
  });
});

describe('how a list input launches', () => {
  const runs = (source: string) => validate(source).template?.header.inputs.find((i) => i.name === 'tickets');

  test("a ticket template's tickets run each by default; runs: together keeps one run", () => {
    const t = validate(QUICK).template!;
    expect(inputRuns(t.header.inputs[0]!, t.ticket)).toBe('each');
    const together = edit(QUICK, '      type: list\n', '      type: list\n      runs: together\n');
    expect(validate(together).problems).toEqual([]);
    expect(inputRuns(runs(together)!, true)).toBe('together');
  });

  test('any other list input runs together unless it says each; a value that is not a list has no runs', () => {
    const t = validate(RESEARCH).template!;
    const sources = t.header.inputs.find((i) => i.name === 'sources')!;
    expect(inputRuns(sources, t.ticket)).toBe('together');
    expect(inputRuns(t.header.inputs.find((i) => i.name === 'question')!, t.ticket)).toBeUndefined();
  });

  test('runs is together or each', () => {
    const bad = validate(edit(QUICK, '      type: list\n', '      type: list\n      runs: sometimes\n'));
    expect(bad.problems.map((p) => `${p.code} ${p.path}`)).toEqual(['type.mismatch /template/inputs/0/runs']);
  });
});

describe('reserved names', () => {
  test.each(['shipped', 'base'])('%s is refused, also when the file carries that name', (name) => {
    const r = validate(edit(QUICK, 'name: quick-fix', `name: ${name}`), { name });
    expect(codes(r.problems)).toEqual(['name.reserved']);
    expect(r.valid).toBe(false);
  });
});

describe('the shipped templates, with the roles’ kits', () => {
  const catalogue = shippedCatalogue();
  test.each(shipped())('$name has no problem, and every loop it has is bounded', ({ name, source }) => {
    const r = validate(source, { name, catalogue });
    expect(r.problems).toEqual([]);
    for (const loop of r.template?.loops ?? []) expect(loop.bounded, loop.cycle.join(' → ')).toBe(true);
  });

  test('batch is one run for the whole batch; ticket-completion one run per ticket', () => {
    const byName = new Map(shipped().map((t) => [t.name, validate(t.source, { name: t.name, catalogue }).template!]));
    const batch = byName.get('batch')!;
    expect(inputRuns(batch.header.inputs.find((i) => i.name === 'tickets')!, batch.ticket)).toBe('together');
    const one = byName.get('ticket-completion')!;
    expect(inputRuns(one.header.inputs.find((i) => i.name === 'tickets')!, one.ticket)).toBe('each');
  });

  test("ticket-close's close node, played by ticket_close with a read_only profile and no proof, is refused", () => {
    // the case the kit rule exists for: the shipped role's kit lists tickets.update
    const t = shipped().find((x) => x.name === 'ticket-close')!;
    const source = edit(edit(t.source, 'over: complete_ticket', 'over: land_workspace'), 'profile: ticket_write', 'profile: read_only');
    expect(validate(source, { name: 'ticket-close', catalogue }).problems.map((p) => `${p.code} ${p.path}`)).toEqual(['ticket.mutation_unproven /nodes/close/role']);
  });
});

describe('the JSON Schema states the new keys', () => {
  test('max_visits on model and builtin nodes, runs on inputs, and what a join waits for', () => {
    const text = JSON.stringify(templateJsonSchema());
    const schema = templateJsonSchema() as { properties: { template: { properties: { inputs: { items: { properties: Record<string, { enum?: string[] }> } } } }; nodes: { additionalProperties?: unknown; patternProperties?: Record<string, { anyOf: { properties: Record<string, { minimum?: number }> }[] }> } } };
    const variants = Object.values(schema.properties.nodes.patternProperties ?? {})[0]?.anyOf ?? [];
    const withBound = variants.filter((v) => v.properties.max_visits?.minimum === 1);
    // the model node and every builtin; not the tool node
    expect(withBound).toHaveLength(variants.length - 1);
    expect(schema.properties.template.properties.inputs.items.properties.runs?.enum).toEqual(['together', 'each']);
    expect(text).toContain('a source skipped by its `when:` counts as done');
  });
});
