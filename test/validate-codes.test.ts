// One trigger and one near miss for every problem code the validator reports
// (docs/problems.md). Each case asserts code, path and line (and column
// where it is meaningful); the near miss is a small change that must not give
// the code.
import { describe, expect, test } from 'vitest';
import { LAUNCH_CODES } from '../src/template/launch.js';
import { PROBLEM_CODES, type ProblemCode } from '../src/template/problems.js';
import { edit, QUICK, RESEARCH, TICKET_CLOSE, validate } from './fixtures/templates/helpers.js';

interface Case {
  code: ProblemCode;
  source: string;
  name?: string;
  path: string;
  line?: number;
  column?: number;
  /** a source that differs a little and must not give the code; default the unedited base */
  near?: string;
  nearName?: string;
}

const Q = QUICK;
const R = RESEARCH;
const T = TICKET_CLOSE;
const nodesFixture = (n: number) =>
  'template:\n  name: many\n  purpose: many nodes\n  entry: n0\n  inlet: in\nversion: 1\nnodes:\n' +
  Array.from({ length: n }, (_, i) => `  n${i}: { type: builtin, builtin: join }\n`).join('');
/** n distinct cords among 33 join nodes (33 × 33 pairs is more than the cap). */
const cordsFixture = (n: number) =>
  'template:\n  name: many\n  purpose: many cords\n  entry: n0\n  inlet: in\nversion: 1\nnodes:\n' +
  Array.from({ length: 33 }, (_, i) => `  n${i}: { type: builtin, builtin: join }\n`).join('') +
  'cords:\n' +
  Array.from({ length: n }, (_, i) => `  - { from: n${Math.floor(i / 33)}.out, to: n${i % 33}.in }\n`).join('');

const cases: Case[] = [
  // Reading (read.ts reports these; the validator passes them on).
  { code: 'yaml.syntax', source: edit(Q, '  intake: { type: model, role: ticket_intake, profile: read_only }', '  intake: { type: model, role: ticket_intake'), path: '' },
  { code: 'yaml.multiple_documents', source: `${Q}---\nx: 1\n`, path: '', line: 41 },
  { code: 'yaml.duplicate_key', source: edit(Q, '  writes: true\n', '  writes: true\n  writes: true\n'), path: '/template/writes', line: 13, column: 3, near: edit(Q, '  writes: true\n', '  writes: true\n  # writes: true\n') },
  {
    code: 'yaml.alias_limit',
    source: edit(Q, 'purpose: one small', `purpose: &p one small`) + `x: [${Array.from({ length: 200 }, () => '*p').join(', ')}]\n`,
    path: '',
  },
  { code: 'yaml.tag', source: edit(Q, 'type: list', 'type: !custom list'), path: '/template/inputs/0/type', line: 8, near: edit(Q, 'type: list', 'type: "!custom"') },
  { code: 'limit.size', source: `${Q}# ${'x'.repeat(130 * 1024)}\n`, path: '' },
  { code: 'limit.nodes', source: nodesFixture(257), path: '/nodes', line: 8, column: 3, near: nodesFixture(256) },
  { code: 'limit.cords', source: cordsFixture(1025), path: '/cords', line: 42, column: 3, near: cordsFixture(1024) },
  // Structure.
  { code: 'doc.not_mapping', source: edit(Q, '  checks: { type: builtin, builtin: checks, max_visits: 5 }', '  checks: checks'), path: '/nodes/checks', line: 26, column: 11 },
  { code: 'key.unknown', source: edit(Q, '  base: ticket-completion\n', '  base: ticket-completion\n  colour: red\n'), path: '/template/colour', line: 5, column: 3 },
  { code: 'key.missing', source: edit(Q, '  inlet: start\n', ''), path: '/template/inlet', line: 2, column: 3 },
  { code: 'type.mismatch', source: edit(Q, 'writes: true', 'writes: "yes"'), path: '/template/writes', line: 12, column: 11, near: edit(Q, 'writes: true', 'writes: false') },
  // Header.
  { code: 'name.pattern', source: edit(Q, 'name: quick-fix', 'name: Quick_Fix'), path: '/template/name', line: 2, column: 9, near: edit(Q, 'name: quick-fix', 'name: 2quick-fix') },
  { code: 'name.reserved', source: edit(Q, 'name: quick-fix', 'name: shipped'), path: '/template/name', line: 2, column: 9, near: edit(Q, 'name: quick-fix', 'name: shipped-fix') },
  { code: 'name.mismatch', source: Q, name: 'quick', path: '/template/name', line: 2, column: 9, nearName: 'quick-fix' },
  { code: 'purpose.empty', source: edit(Q, 'purpose: one small ticket, one worker, checks, a human gate, landed and closed', 'purpose: "  "'), path: '/template/purpose', line: 3, column: 12 },
  { code: 'purpose.multiline', source: edit(Q, 'purpose: one small ticket, one worker, checks, a human gate, landed and closed', 'purpose: "one small ticket\\nand a worker"'), path: '/template/purpose', line: 3, column: 12, near: edit(Q, 'purpose: one small ticket, one worker, checks, a human gate, landed and closed', 'purpose: >-\n    one small ticket\n    folded onto one line') },
  { code: 'base.pattern', source: edit(Q, 'base: ticket-completion', 'base: Ticket Completion'), path: '/template/base', line: 4, column: 9 },
  { code: 'base.unknown', source: edit(Q, 'base: ticket-completion', 'base: nothing-here'), path: '/template/base', line: 4, column: 9 },
  { code: 'input.unnamed', source: edit(Q, '- name: tickets', '- description: tickets'), path: '/template/inputs/0/name', line: 6, column: 7 },
  { code: 'input.pattern', source: edit(Q, '- name: tickets', '- name: Tickets'), path: '/template/inputs/0/name', line: 6, column: 13, near: edit(R, 'name: sources', 'name: s0urces_2') },
  { code: 'input.duplicate', source: edit(R, 'name: depth', 'name: question'), path: '/template/inputs/1/name', line: 8, column: 13 },
  { code: 'input.default_type', source: edit(R, 'default: 2', 'default: two'), path: '/template/inputs/1/default', line: 10, column: 16, near: edit(R, 'type: integer', 'type: number') },
  { code: 'input.one_of_type', source: edit(R, 'one_of: [1, 2, 3]', 'one_of: [1, two, 3]'), path: '/template/inputs/1/one_of/1', line: 11, column: 19, near: edit(R, 'one_of: [1, 2, 3]', 'one_of: [1, 2, 3.0]') },
  { code: 'input.runs_not_list', source: edit(R, '      default: 2\n', '      default: 2\n      runs: each\n'), path: '/template/inputs/1/runs', line: 11, column: 7, near: edit(R, '      default: []\n', '      default: []\n      runs: each\n') },
  { code: 'role.duplicate', source: edit(R, '      node: first\n', '      node: first\n    - role: lead\n      node: second\n'), path: '/template/roles/1/role', line: 18, column: 13, near: edit(R, '      node: first\n', '      node: first\n    - role: second_lead\n      node: second\n') },
  { code: 'role.node_unknown', source: edit(R, 'node: first', 'node: nobody'), path: '/template/roles/0/node', line: 17, column: 13 },
  { code: 'role.not_model', source: edit(R, 'node: first', 'node: keep'), path: '/template/roles/0/node', line: 17, column: 13, near: edit(R, 'node: first', 'node: second') },
  { code: 'entry.unknown_node', source: edit(Q, 'entry: intake', 'entry: nowhere'), path: '/template/entry', line: 14, column: 10 },
  { code: 'entry.unknown_inlet', source: edit(Q, 'inlet: start', 'inlet: begin'), path: '/template/inlet', line: 15, column: 10 },
  { code: 'terminal.unknown_node', source: edit(Q, 'terminal: close', 'terminal: nowhere'), path: '/template/terminal', line: 16, column: 13 },
  { code: 'terminal.wired_after', source: `${Q}  - { from: close.done, to: work.revise }\n`, path: '/cords/9/from', line: 41, column: 13, near: `${Q}  - { from: land.conflict, to: checks.in }\n` },
  // Patch and nodes.
  { code: 'patch.version', source: edit(Q, 'version: 1', 'version: 2'), path: '/version', line: 17, column: 10 },
  { code: 'patch.no_nodes', source: 'template:\n  name: empty\n  purpose: nothing\n  entry: a\n  inlet: start\nversion: 1\nnodes: {}\n', path: '/nodes', line: 7, column: 8, near: 'template:\n  name: one\n  purpose: one node\n  entry: a\n  inlet: in\nversion: 1\nnodes: { a: { type: builtin, builtin: join } }\n' },
  { code: 'node.id_pattern', source: edit(Q, '  checks: {', '  Checks: {'), path: '/nodes/Checks', line: 26, column: 3, near: edit(edit(edit(Q, '  checks: {', '  checks_2: {'), 'to: checks.in', 'to: checks_2.in'), 'from: checks.passed', 'from: checks_2.passed').replace('from: checks.failed', 'from: checks_2.failed') },
  { code: 'node.type_unknown', source: edit(Q, 'checks: { type: builtin', 'checks: { type: gadget'), path: '/nodes/checks/type', line: 26, column: 19 },
  { code: 'node.subpatch', source: edit(Q, 'checks: { type: builtin', 'checks: { type: subpatch'), path: '/nodes/checks/type', line: 26, column: 19 },
  { code: 'node.unreachable', source: edit(R, '  fetch: {', '  spare: { type: builtin, builtin: join }\n  fetch: {'), path: '/nodes/spare', line: 34, column: 3, near: `${edit(R, '  fetch: {', '  spare: { type: builtin, builtin: join }\n  fetch: {')}  - { from: cite.failed, to: spare.in }\n` },
  { code: 'model.role_missing', source: edit(Q, 'intake: { type: model, role: ticket_intake, profile', 'intake: { type: model, profile'), path: '/nodes/intake/role', line: 19, column: 11 },
  { code: 'model.role_unknown', source: edit(Q, 'role: worker\n    profile', 'role: janitor\n    profile'), path: '/nodes/work/role', line: 22, column: 11 },
  { code: 'model.profile_missing', source: edit(Q, '    profile: workspace_write\n', ''), path: '/nodes/work/profile', line: 21, column: 5 },
  { code: 'model.profile_unknown', source: edit(Q, 'profile: workspace_write', 'profile: root'), path: '/nodes/work/profile', line: 23, column: 14 },
  { code: 'model.port_duplicate', source: edit(Q, 'inlets: [start, revise]', 'inlets: [start, revise, start]'), path: '/nodes/work/inlets/2', line: 24, column: 29, near: edit(Q, 'inlets: [start, revise]', 'inlets: [start, revise, restart]') },
  { code: 'model.prompt_input_unknown', source: edit(Q, '{{inputs.tickets}}', '{{inputs.ticket}}'), path: '/nodes/work/prompt', line: 25, column: 13, near: edit(Q, '{{inputs.tickets}}', '{{ inputs.tickets }} and {{ticket.id}}') },
  // Builtins and tools.
  { code: 'builtin.unknown', source: edit(Q, 'builtin: checks,', 'builtin: lint,'), path: '/nodes/checks/builtin', line: 26, column: 37 },
  { code: 'builtin.argument_missing', source: edit(Q, ', over: complete_ticket', ''), path: '/nodes/completion_proof/over', line: 29, column: 21 },
  { code: 'builtin.argument_unknown', source: edit(Q, 'builtin: checks,', 'builtin: checks, over: x,'), path: '/nodes/checks/over', line: 26, column: 45, near: edit(Q, 'builtin: human_gate }', 'builtin: human_gate, prompt: "Land it?" }') },
  { code: 'builtin.capability_unknown', source: edit(Q, 'over: complete_ticket', 'over: finish'), path: '/nodes/completion_proof/over', line: 29, column: 72 },
  { code: 'tool.extra_key', source: edit(R, 'tool: web.fetch }', 'tool: web.fetch, prompt: hi }'), path: '/nodes/fetch/prompt', line: 34, column: 41 },
  { code: 'tool.unknown', source: edit(R, 'tool: web.fetch }', 'tool: web.crawl }'), path: '/nodes/fetch/tool', line: 34, column: 30, near: edit(R, 'tool: web.fetch }', 'tool: web.search }') },
  // Cords.
  { code: 'cord.endpoint', source: edit(Q, 'from: intake.done', 'from: intake'), path: '/cords/0/from', line: 32, column: 13 },
  { code: 'cord.node_unknown', source: edit(Q, 'to: work.start', 'to: worker.start'), path: '/cords/0/to', line: 32, column: 30 },
  { code: 'cord.port_unknown', source: edit(Q, 'from: work.done', 'from: work.finished'), path: '/cords/1/from', line: 33, column: 13, near: edit(Q, 'from: work.done, to: checks.in', 'from: work.done, to: work.revise') },
  { code: 'cord.duplicate', source: edit(Q, '  - { from: work.done, to: checks.in }\n', '  - { from: work.done, to: checks.in }\n  - {from: work.done, to: checks.in}\n'), path: '/cords/2', line: 34, column: 5 },
  // Graph rules.
  { code: 'land.ungated', source: edit(Q, 'from: gate.approved, to: land.in', 'from: checks.passed, to: land.in'), path: '/nodes/land', line: 28, column: 3 },
  // the fixture's work → checks → work loop loses its bound; the near miss is the fixture, bounded at checks
  { code: 'loop.unbounded', source: edit(Q, ', max_visits: 5', ''), path: '/nodes/work', line: 20, column: 3 },
  { code: 'ticket.tickets_input', source: edit(Q, 'required: true', 'required: false'), path: '/template/inputs/0', line: 6, column: 7 },
  { code: 'ticket.entry_intake', source: edit(Q, 'role: ticket_intake', 'role: worker'), path: '/template/entry', line: 14, column: 10 },
  { code: 'ticket.land_missing', source: edit(edit(edit(edit(Q, '  land: { type: builtin, builtin: workspace_land }\n', ''), '  - { from: gate.approved, to: land.in }\n', '  - { from: gate.approved, to: completion_proof.in }\n'), '  - { from: land.landed, to: completion_proof.in }\n', ''), '  - { from: land.conflict, to: work.revise }\n', ''), path: '/nodes', line: 13, column: 18 },
  { code: 'ticket.close_missing', source: edit(Q, 'role: ticket_close', 'role: worker'), path: '/nodes', line: 13, column: 18 },
  { code: 'ticket.completion_proof', source: edit(Q, 'over: complete_ticket', 'over: land_workspace'), path: '/nodes/completion_proof', line: 29, column: 3 },
  { code: 'ticket.mutation_unproven', source: edit(T, 'over: complete_ticket', 'over: land_workspace'), path: '/nodes/close/profile', line: 14, column: 3 },
  { code: 'declare.writes', source: edit(R, 'tool: web.fetch', 'tool: workspace.write'), path: '/template/writes', line: 2, column: 3, near: edit(edit(R, 'tool: web.fetch', 'tool: workspace.write'), '  entry: first', '  writes: true\n  entry: first') },
  { code: 'declare.closes_ticket', source: edit(Q, 'from: completion_proof.held, to: close.start', 'from: completion_proof.failed, to: work.revise'), path: '/template/closes_ticket', line: 13, column: 18 },
];

describe('every problem code has a trigger and a near miss', () => {
  test.each(cases)('$code', (c) => {
    const r = validate(c.source, c.name === undefined ? {} : { name: c.name });
    const hit = r.problems.find((p) => p.code === c.code);
    expect(hit, JSON.stringify(r.problems, null, 1)).toBeDefined();
    expect(hit?.severity).toBe(PROBLEM_CODES[c.code].severity);
    expect(hit?.path).toBe(c.path);
    if (c.line !== undefined) expect(hit?.line).toBe(c.line);
    if (c.column !== undefined) expect(hit?.column).toBe(c.column);
    if (PROBLEM_CODES[c.code].severity === 'error') expect(r.valid).toBe(false);

    const near = c.near ?? (c.source === QUICK || c.source.includes('name: quick-fix') ? QUICK : c.source.includes('name: research') ? RESEARCH : c.source.includes('name: ticket-close') ? TICKET_CLOSE : undefined);
    if (near !== undefined) {
      const n = validate(near, c.nearName === undefined ? {} : { name: c.nearName });
      expect(n.problems.map((p) => p.code), JSON.stringify(n.problems, null, 1)).not.toContain(c.code);
    }
  });

  test('the table covers every code the validator owns', () => {
    // file.unreadable belongs to the library (a file it cannot read), not to the validator;
    // the launch codes to a launch preview's inputs (test/launch.test.ts); note.invalid to a save's note (test/save-note.test.ts).
    const others: readonly string[] = ['file.unreadable', 'note.invalid', ...LAUNCH_CODES];
    const owned = Object.keys(PROBLEM_CODES).filter((c) => !others.includes(c));
    expect(cases.map((c) => c.code).sort()).toEqual(owned.sort());
  });
});
