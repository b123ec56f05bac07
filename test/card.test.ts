import { describe, expect, test } from 'vitest';
import { buildCard } from '../src/template/card.js';
import type { Catalogue } from '../src/template/model.js';

const catalogue: Catalogue = {
  roles: new Set(['worker', 'reviewer', 'ticket_intake', 'ticket_close']),
  templates: new Set(['small']),
};

const SMALL = `template:
  name: small
  purpose: one worker then a gate
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker, profile: workspace_write, model: claude }
  gate: { type: builtin, builtin: human_gate }
  fetch: { type: tool, tool: web.fetch }
cords:
  - { from: work.done, to: gate.in }
  - { from: gate.approved, to: fetch.in }
`;

describe('buildCard', () => {
  test('nodes carry type, role, model, profile, touches, ports and their line', () => {
    const card = buildCard(SMALL, { name: 'small' }, catalogue);
    expect(card.valid).toBe(true);
    expect(card.name).toBe('small');
    expect(card.purpose).toBe('one worker then a gate');
    expect(card.ticket).toBe(false);
    expect(card.header.entry).toBe('work');
    expect(card.header.writes).toBe(false);
    const byId = Object.fromEntries(card.nodes.map((n) => [n.id, n]));
    expect(byId.work).toEqual({
      id: 'work',
      type: 'model',
      role: 'worker',
      model: 'claude',
      profile: 'workspace_write',
      builtin: null,
      tool: null,
      touches: ['workspace.read', 'workspace.write', 'shell.run'],
      max_visits: null,
      inlets: ['start'],
      outlets: ['done'],
      line: 8,
    });
    expect(byId.gate).toMatchObject({ type: 'builtin', builtin: 'human_gate', inlets: ['in'], outlets: ['approved', 'rejected'], line: 9 });
    expect(byId.fetch).toMatchObject({ type: 'tool', tool: 'web.fetch', touches: ['web.fetch'], line: 10 });
    expect(card.cords).toEqual([
      { from: 'work.done', to: 'gate.in', line: 12 },
      { from: 'gate.approved', to: 'fetch.in', line: 13 },
    ]);
    expect(card.diff).toBeNull();
    expect(card.name_differs).toBe(false);
    expect(card.purpose_differs).toBe(false);
  });

  test('flags a name and a purpose that differ from the header, and the name problem', () => {
    const card = buildCard(SMALL, { name: 'other', purpose: 'something else' }, catalogue);
    expect(card.name_differs).toBe(true);
    expect(card.purpose_differs).toBe(true);
    expect(card.valid).toBe(false);
    expect(card.problems.map((p) => p.code)).toContain('name.mismatch');
  });

  test('a purpose equal to the header, up to surrounding space, does not differ', () => {
    const card = buildCard(SMALL, { name: 'small', purpose: ' one worker then a gate ' }, catalogue);
    expect(card.purpose_differs).toBe(false);
  });

  test('an invalid template still gives a card with what could be read', () => {
    const bad = SMALL.replace('profile: workspace_write, ', '');
    const card = buildCard(bad, { name: 'small' }, catalogue);
    expect(card.valid).toBe(false);
    expect(card.problems.find((p) => p.code === 'model.profile_missing')?.path).toBe('/nodes/work/profile');
    expect(card.nodes.map((n) => n.id)).toEqual(['work', 'gate', 'fetch']);
  });

  test('unreadable YAML gives an empty card with its problem', () => {
    const card = buildCard('template: [', { name: 'x' }, catalogue);
    expect(card.valid).toBe(false);
    expect(card.problems[0]?.code).toBe('yaml.syntax');
    expect(card.nodes).toEqual([]);
    expect(card.header.name).toBeNull();
    // nothing was read to differ: the yaml.syntax problem says what is wrong, not a name warning
    expect(card.name_differs).toBe(false);
  });

  test('diff against the template it varies', () => {
    const varied = SMALL.replace('name: small', 'name: bigger').replace('model: claude', 'model: grok');
    const card = buildCard(varied, { name: 'bigger' }, catalogue, { name: 'small', kind: 'base', source: SMALL });
    expect(card.diff?.against).toEqual({ name: 'small', kind: 'base' });
    expect(card.diff?.identical).toBe(false);
    expect(card.diff?.unified).toContain('-  work: { type: model, role: worker, profile: workspace_write, model: claude }');
    expect(card.diff?.graph.nodes.changed).toEqual([{ id: 'work', changes: [{ field: 'model', before: 'claude', after: 'grok' }] }]);
  });
});

describe('the card shows what the rules read', () => {
  const LOOP = `template:
  name: loop
  purpose: work until the checks pass
  inputs:
    - { name: tickets, required: true, type: list }
    - { name: notes, type: list }
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: ticket_close, profile: read_only, inlets: [start, revise], max_visits: 4 }
  checks: { type: builtin, builtin: checks }
  fix: { type: model, role: worker, profile: workspace_write }
cords:
  - { from: work.done, to: checks.in }
  - { from: checks.failed, to: work.revise }
  - { from: checks.passed, to: fix.start }
  - { from: fix.done, to: fix.start }
`;
  const withKits: Catalogue = { ...catalogue, kits: new Map([['ticket_close', ['tickets.read', 'tickets.update']]]) };

  test('each loop with its bound; an unbounded one says so', () => {
    const card = buildCard(LOOP, { name: 'loop' }, withKits);
    expect(card.loops).toEqual([
      { cycle: ['work', 'checks', 'work'], nodes: ['work', 'checks'], bounds: [{ node: 'work', max_visits: 4 }], bounded: true },
      { cycle: ['fix', 'fix'], nodes: ['fix'], bounds: [], bounded: false },
    ]);
    expect(card.nodes.find((n) => n.id === 'work')?.max_visits).toBe(4);
    expect(card.nodes.find((n) => n.id === 'checks')?.max_visits).toBeNull();
    expect(card.problems.map((p) => `${p.code} ${p.path}`)).toContain('loop.unbounded /nodes/fix');
  });

  test("can touch includes what the role's kit grants", () => {
    const card = buildCard(LOOP, { name: 'loop' }, withKits);
    expect(card.nodes.find((n) => n.id === 'work')?.touches).toEqual(['workspace.read', 'tickets.read', 'tickets.update']);
  });

  test('list inputs show how they launch, defaults applied', () => {
    const card = buildCard(LOOP, { name: 'loop' }, withKits);
    // not a ticket template (no closes_ticket), so tickets runs together too
    expect(card.header.inputs.map((i) => [i.name, i.runs])).toEqual([['tickets', 'together'], ['notes', 'together']]);
    const ticketCard = buildCard(LOOP.replace('  entry: work', '  closes_ticket: true\n  entry: work'), { name: 'loop' }, withKits);
    expect(ticketCard.header.inputs[0]?.runs).toBe('each');
  });
});
