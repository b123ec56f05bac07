// The shipped harness (docs/harness.md): every template valid with no
// warning, the ticket flags as docs/harness.md lists them, and every built-in role in
// the canonical form a role save would write.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isTool } from '../src/template/catalog/tools.js';
import { canonicalJson, canonicalRoleMd } from '../src/library/roles/canonical.js';
import { buildCard } from '../src/template/card.js';
import { validateTemplate } from '../src/template/validate.js';
import { shippedKits } from './fixtures/templates/helpers.js';

const HARNESS = join(import.meta.dirname, '..', 'harness');
const TEMPLATES_DIR = join(HARNESS, 'templates');
const ROLES_DIR = join(HARNESS, 'roles');

const templateNames = readdirSync(TEMPLATES_DIR)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.slice(0, -'.yaml'.length))
  .sort();
const roleNames = readdirSync(ROLES_DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
// with the roles' kits, as the library checks them: what a kit grants counts (docs/format.md)
const catalogue = { roles: new Set(roleNames), templates: new Set(templateNames), kits: shippedKits(roleNames) };

const source = (name: string) => readFileSync(join(TEMPLATES_DIR, `${name}.yaml`), 'utf8');

interface RawNode {
  type: string;
  role?: string;
  model?: string;
  builtin?: string;
  over?: string;
  profile?: string;
  when?: { on_path: string };
}
interface RawTemplate {
  template: { closes_ticket?: boolean; purpose: string };
  nodes: Record<string, RawNode>;
  cords: { from: string; to: string }[];
}
const raw = (name: string) => parse(source(name)) as RawTemplate;
const nodesWhere = (t: RawTemplate, pred: (n: RawNode) => boolean) =>
  Object.entries(t.nodes).filter(([, n]) => pred(n));

/** docs/harness.md: the eight names, which are ticket templates, and what each varies. */
const EXPECTED: Record<string, { ticket: boolean; base?: string }> = {
  'ticket-completion': { ticket: true },
  'quick-fix': { ticket: true, base: 'ticket-completion' },
  'mock-first': { ticket: true, base: 'ticket-completion' },
  batch: { ticket: true },
  research: { ticket: false },
  'research-brief': { ticket: false, base: 'research' },
  'ticket-close': { ticket: false },
  write: { ticket: false },
};

const REQUIRED_ROLES = [
  'ticket_intake', 'planner', 'worker', 'reviewer', 'ticket_close', 'mock_drawer',
  'sorter', 'researcher', 'writer', 'critic', 'brief_writer', 'verifier',
];

describe('shipped templates', () => {
  it('are exactly the eight docs/harness.md lists', () => {
    expect(templateNames).toEqual(Object.keys(EXPECTED).sort());
  });

  describe.each(templateNames)('%s', (name) => {
    it('validates with no error and no warning', () => {
      const v = validateTemplate(source(name), { name, catalogue });
      expect(v.problems.map((p) => `${p.severity} ${p.code} ${p.path}`)).toEqual([]);
      expect(v.valid).toBe(true);
    });

    it('carries the ticket flag and base docs/harness.md lists', () => {
      const v = validateTemplate(source(name), { name, catalogue });
      expect(v.template?.ticket).toBe(EXPECTED[name]?.ticket);
      expect(v.template?.header.base).toBe(EXPECTED[name]?.base);
      if (EXPECTED[name]?.ticket) {
        expect(v.template?.header.writes).toBe(true);
        expect(v.template?.header.closes_ticket).toBe(true);
      }
    });

    it('uses only roles that ship in harness/roles', () => {
      const used = nodesWhere(raw(name), (n) => n.type === 'model').map(([, n]) => n.role);
      for (const role of used) expect(roleNames).toContain(role);
    });
  });

  it('research runs grok only when it is on PATH, joins both, and checks citations before the gate', () => {
    for (const name of ['research', 'research-brief']) {
      const t = raw(name);
      const grok = nodesWhere(t, (n) => n.model === 'grok');
      expect(grok).toHaveLength(1);
      expect(grok[0]?.[1].when).toEqual({ on_path: 'grok' });
      expect(nodesWhere(t, (n) => n.builtin === 'join')).toHaveLength(1);
      const [citations] = nodesWhere(t, (n) => n.builtin === 'citation_check').map(([id]) => id);
      const gates = nodesWhere(t, (n) => n.builtin === 'human_gate').map(([id]) => id);
      const intoGates = t.cords.filter((c) => gates.includes(c.to.split('.')[0] ?? ''));
      expect(intoGates.map((c) => c.from)).toEqual([`${citations}.passed`]);
    }
  });

  it('research pins its first researcher to claude and its second to grok, and the card shows both', () => {
    for (const name of ['research', 'research-brief']) {
      const card = buildCard(source(name), { name }, catalogue);
      const researchers = card.nodes.filter((n) => n.role === 'researcher').map((n) => `${n.id}:${n.model}`);
      expect(researchers).toEqual(['research:claude', 'grok:grok']);
    }
  });

  it('write has its draft critiqued by a model pinned other than the drafter, as the card shows', () => {
    const card = buildCard(source('write'), { name: 'write' }, catalogue);
    const model = (id: string) => card.nodes.find((n) => n.id === id)?.model;
    expect(model('draft')).toBe('claude');
    expect(model('revise')).toBe('claude');
    expect(model('critique')).toBe('grok');
  });

  it('quick-fix has no planner and no model review', () => {
    const roles = nodesWhere(raw('quick-fix'), (n) => n.type === 'model').map(([, n]) => n.role);
    expect(roles).not.toContain('planner');
    expect(roles).not.toContain('reviewer');
  });

  it('mock-first signs off the mock at a gate of its own, before the plan', () => {
    const t = raw('mock-first');
    expect(nodesWhere(t, (n) => n.builtin === 'human_gate')).toHaveLength(2);
    expect(nodesWhere(t, (n) => n.role === 'mock_drawer')).toHaveLength(1);
  });

  it('batch sorts, then loops with for_each, and commits before it lands', () => {
    const t = raw('batch');
    const [sorter] = nodesWhere(t, (n) => n.role === 'sorter').map(([id]) => id);
    const loops = nodesWhere(t, (n) => n.builtin === 'for_each').map(([id]) => id);
    expect(loops.length).toBeGreaterThan(0);
    expect(t.cords).toContainEqual({ from: `${sorter}.done`, to: `${loops[0]}.items` });
    const [land] = nodesWhere(t, (n) => n.builtin === 'workspace_land').map(([id]) => id);
    const [commit] = nodesWhere(t, (n) => n.builtin === 'commit').map(([id]) => id);
    expect(t.cords).toContainEqual({ from: `${commit}.committed`, to: `${land}.in` });
    // each loop asks for its next item, so it cannot stall on the first ticket
    for (const loop of loops) expect(t.cords.some((c) => c.to === `${loop}.next`)).toBe(true);
  });

  it('ticket-close proves complete_ticket before its ticket_write node, without declaring closes_ticket', () => {
    const t = raw('ticket-close');
    expect(t.template.closes_ticket).toBeUndefined();
    const [close] = nodesWhere(t, (n) => n.profile === 'ticket_write').map(([id]) => id);
    const [proof] = nodesWhere(t, (n) => n.builtin === 'capability_assert' && n.over === 'complete_ticket').map(
      ([id]) => id,
    );
    expect(t.cords.filter((c) => c.to.startsWith(`${close}.`)).map((c) => c.from)).toEqual([`${proof}.held`]);
  });

  it('the validator refuses ticket-completion rewired to land around its human gate', () => {
    // guards the harness's one hard safety rule against a validator that lets everything through
    const rewired = source('ticket-completion').replace(
      '{ from: review.approve, to: gate.in }',
      '{ from: review.approve, to: land.in }',
    );
    expect(rewired).not.toBe(source('ticket-completion'));
    const v = validateTemplate(rewired, { name: 'ticket-completion', catalogue });
    expect(v.problems.map((p) => p.code)).toContain('land.ungated');
  });
});

describe('built-in roles', () => {
  it('include every role docs/harness.md lists', () => {
    for (const role of REQUIRED_ROLES) expect(roleNames).toContain(role);
  });

  describe.each(roleNames)('%s', (name) => {
    const dir = join(ROLES_DIR, name);
    const files = readdirSync(dir);

    it('holds role.md in canonical form', () => {
      expect(files).toContain('role.md');
      const text = readFileSync(join(dir, 'role.md'), 'utf8');
      expect(text).toBe(canonicalRoleMd(text));
      expect(text.trim().length).toBeGreaterThan(0);
    });

    it('has, if any, a canonical kit.json of known tool ids', () => {
      expect(files.filter((f) => f !== 'role.md' && f !== 'kit.json')).toEqual([]);
      if (!files.includes('kit.json')) return;
      const text = readFileSync(join(dir, 'kit.json'), 'utf8');
      const kit = JSON.parse(text) as { tools: unknown };
      expect(text).toBe(canonicalJson(kit));
      expect(Object.keys(kit)).toEqual(['tools']);
      expect(Array.isArray(kit.tools)).toBe(true);
      for (const tool of kit.tools as string[]) expect(isTool(tool), tool).toBe(true);
      expect(new Set(kit.tools as string[]).size).toBe((kit.tools as string[]).length);
    });
  });
});

describe('docs/harness.md', () => {
  const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'harness.md'), 'utf8');

  it.each(templateNames)('has a section for %s quoting its purpose', (name) => {
    const start = doc.indexOf(`### ${name}\n`);
    expect(start).toBeGreaterThanOrEqual(0);
    const next = doc.indexOf('\n#', start + 1);
    const section = doc.slice(start, next === -1 ? undefined : next);
    expect(section).toContain(raw(name).template.purpose);
  });

  it.each(roleNames)('has a table row for the %s role', (name) => {
    expect(doc).toContain(`| \`${name}\` |`);
  });
});
