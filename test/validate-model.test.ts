// The TemplateModel the validator builds (defaults, touches, lines, the ticket
// flag), built best-effort under errors; and the rules about how problems are
// gathered: all at once, in source order, caps before graph work.
import { describe, expect, test } from 'vitest';
import { LIMITS } from '../src/template/read.js';
import { codes, edit, QUICK, RESEARCH, shipped, shippedCatalogue, TICKET_CLOSE, validate } from './fixtures/templates/helpers.js';
import { validateTemplate } from '../src/template/validate.js';

describe('the template model', () => {
  test('defaults, touches and lines of the quick-fix fixture', () => {
    const r = validate(QUICK, { name: 'quick-fix' });
    expect(r.problems).toEqual([]);
    expect(r.valid).toBe(true);
    const t = r.template;
    expect(t?.ticket).toBe(true);
    expect(t?.version).toBe(1);
    expect(t?.header).toMatchObject({ name: 'quick-fix', base: 'ticket-completion', writes: true, closes_ticket: true, entry: 'intake', inlet: 'start', terminal: 'close' });
    expect(t?.header.inputs).toEqual([{ name: 'tickets', required: true, type: 'list' }]);
    const byId = new Map(t?.nodes.map((n) => [n.id, n]));
    expect(t?.nodes.map((n) => n.id)).toEqual(['intake', 'work', 'checks', 'gate', 'land', 'completion_proof', 'close']);
    expect(byId.get('intake')).toMatchObject({ type: 'model', inlets: ['start'], outlets: ['done'], touches: ['workspace.read', 'tickets.read'], line: 19 });
    expect(byId.get('work')).toMatchObject({ inlets: ['start', 'revise'], outlets: ['done'], touches: ['workspace.read', 'workspace.write', 'shell.run'], line: 20 });
    expect(byId.get('gate')).toMatchObject({ type: 'builtin', builtin: 'human_gate', inlets: ['in'], outlets: ['approved', 'rejected'], touches: [] });
    expect(byId.get('completion_proof')?.args).toEqual({ over: 'complete_ticket' });
    expect(t?.cords[0]).toEqual({ from: 'intake.done', to: 'work.start', line: 32 });
    expect(t?.cords).toHaveLength(9);
  });

  test('header defaults, tool touches, when and input defaults', () => {
    const t = validate(RESEARCH).template;
    expect(t?.ticket).toBe(false);
    expect(t?.header.writes).toBe(false);
    expect(t?.header.closes_ticket).toBe(false);
    expect(t?.header.inputs).toEqual([
      { name: 'question', required: true, type: 'string', description: 'what to find out' },
      { name: 'depth', required: false, type: 'integer', default: 2, one_of: [1, 2, 3] },
      { name: 'sources', required: false, type: 'list', default: [] },
    ]);
    const byId = new Map(t?.nodes.map((n) => [n.id, n]));
    expect(byId.get('fetch')).toMatchObject({ type: 'tool', tool: 'web.fetch', touches: ['web.fetch'], inlets: ['in'], outlets: ['out'] });
    expect(byId.get('second')).toMatchObject({ model: 'grok', when: { on_path: 'grok' } });
  });

  test('closes_ticket with an optional tickets input is not a ticket template', () => {
    expect(validate(edit(QUICK, 'required: true', 'required: false')).template?.ticket).toBe(false);
    expect(validate(TICKET_CLOSE).template?.ticket).toBe(false);
  });

  test('is built best-effort when the file has errors', () => {
    const r = validate(edit(edit(QUICK, 'profile: workspace_write', 'profile: root'), 'builtin: checks,', 'builtin: lint,'));
    expect(r.valid).toBe(false);
    expect(r.template?.nodes).toHaveLength(7);
    expect(r.template?.nodes.find((n) => n.id === 'work')?.profile).toBe('root');
    expect(r.template?.nodes.find((n) => n.id === 'checks')?.builtin).toBe('lint');
  });

  test('is null when the document cannot be read', () => {
    const r = validate('template: [\n');
    expect(r.template).toBeNull();
    expect(r.valid).toBe(false);
  });
});

describe('how problems are gathered', () => {
  test('all problems at once, in source order', () => {
    const source = edit(edit(edit(QUICK, 'version: 1', 'version: 3'), 'writes: true', 'writes: 1'), 'name: quick-fix', 'name: Bad');
    const r = validate(source);
    expect(codes(r.problems)).toEqual(['name.pattern', 'type.mismatch', 'patch.version']);
    expect(r.problems.map((p) => p.line)).toEqual([2, 12, 17]);
  });

  test('a duplicate key is reported once, and the first occurrence is read', () => {
    const r = validate(edit(QUICK, '  writes: true\n', '  writes: true\n  writes: "yes"\n'));
    expect(codes(r.problems)).toEqual(['yaml.duplicate_key']);
    expect(r.template?.header.writes).toBe(true);
  });

  test('an alias is followed', () => {
    const source = edit(edit(QUICK, 'profile: read_only }', 'profile: &p read_only }'), 'profile: ticket_write }', 'profile: *p }');
    const r = validate(source);
    expect(r.template?.nodes.find((n) => n.id === 'close')?.profile).toBe('read_only');
    expect(codes(r.problems)).not.toContain('model.profile_missing');
  });

  test('over a cap the graph rules are skipped', () => {
    const nodes = Array.from({ length: LIMITS.nodes + 1 }, (_, i) => `  n${i}: { type: builtin, builtin: join }\n`).join('');
    const r = validate(`template:\n  name: many\n  purpose: many\n  entry: n0\n  inlet: in\nversion: 1\nnodes:\n${nodes}`);
    expect(codes(r.problems)).toEqual(['limit.nodes']);
    const under = validate(`template:\n  name: many\n  purpose: many\n  entry: n0\n  inlet: in\nversion: 1\nnodes:\n${nodes.split('\n').slice(0, 3).join('\n')}\n`);
    expect(codes(under.problems)).toContain('node.unreachable');
  });

  test('land.ungated names one path from the entry to the land node', () => {
    const r = validate(edit(QUICK, 'from: gate.approved, to: land.in', 'from: checks.passed, to: land.in'));
    const p = r.problems.find((x) => x.code === 'land.ungated');
    expect(p?.message).toContain('intake → work → checks → land');
  });

  test("a cord from a gate's rejected outlet does not gate the land node; approved does", () => {
    expect(codes(validate(edit(QUICK, 'from: gate.approved, to: land.in', 'from: gate.rejected, to: land.in')).problems)).toContain('land.ungated');
    expect(codes(validate(QUICK).problems)).not.toContain('land.ungated');
  });

  test('a node that is not a mapping, and a document that is not one', () => {
    expect(codes(validate('- a\n- b\n').problems)).toEqual(['doc.not_mapping']);
    expect(validate('- a\n').problems[0]?.path).toBe('');
    expect(codes(validate('').problems)).toEqual(['doc.not_mapping']);
  });

  test('an empty required value reads as missing', () => {
    const r = validate(edit(QUICK, 'profile: workspace_write', 'profile:'));
    expect(codes(r.problems)).toEqual(['model.profile_missing']);
  });

  test('an input of type list needs a list default', () => {
    expect(codes(validate(edit(RESEARCH, 'default: []', 'default: none')).problems)).toEqual(['input.default_type']);
  });

  test('when.on_path must be a bare command and model a model id', () => {
    expect(codes(validate(edit(RESEARCH, 'on_path: grok', 'on_path: /usr/bin/grok --fast')).problems)).toEqual(['type.mismatch']);
    expect(codes(validate(edit(RESEARCH, 'on_path: grok', 'path: grok')).problems)).toEqual(['key.missing', 'key.unknown']);
    expect(codes(validate(edit(RESEARCH, 'model: grok', 'model: Grok 4')).problems)).toEqual(['type.mismatch']);
  });
});

describe('the shipped templates', () => {
  const templates = shipped();
  const catalogue = shippedCatalogue();
  test.skipIf(templates.length === 0).each(templates)('$name is valid with no warnings', ({ name, source }) => {
    const r = validateTemplate(source, { name, catalogue });
    expect(r.problems).toEqual([]);
    expect(r.template?.header.name).toBe(name);
  });
});
