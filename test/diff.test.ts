import { describe, expect, test } from 'vitest';
import { diffTemplates } from '../src/template/diff.js';
import type { Catalogue } from '../src/template/model.js';

const catalogue: Catalogue = { roles: new Set(['worker', 'reviewer']), templates: new Set() };

const A = `template:
  name: a
  purpose: first
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker, profile: read_only }
  gate: { type: builtin, builtin: human_gate }
  old: { type: tool, tool: web.fetch }
cords:
  - { from: work.done, to: gate.in }
  - { from: gate.approved, to: old.in }
`;

const B = `template:
  name: a
  purpose: second
  writes: true
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker, profile: workspace_write, inlets: [start, revise] }
  gate: { type: builtin, builtin: human_gate }
  review: { type: model, role: reviewer, profile: read_only }
cords:
  - { from: work.done, to: gate.in }
  - { from: gate.approved, to: review.start }
`;

describe('diffTemplates', () => {
  test('identical sources: no unified text, an empty graph', () => {
    const d = diffTemplates({ name: 'a', source: A }, { name: 'a', source: A }, catalogue);
    expect(d.identical).toBe(true);
    expect(d.unified).toBe('');
    expect(d.graph).toEqual({ header: [], nodes: { added: [], removed: [], changed: [] }, cords: { added: [], removed: [] } });
  });

  test('header, nodes (with touches and ports) and cords', () => {
    const d = diffTemplates({ name: 'a', source: A, label: 'shipped/a.yaml' }, { name: 'a', source: B }, catalogue);
    expect(d.identical).toBe(false);
    expect(d.unified).toMatch(/^=+\n--- shipped\/a\.yaml\n\+\+\+ a\.yaml\n/);
    expect(d.unified).toContain('-  purpose: first\n+  purpose: second\n');
    expect(d.graph.header).toEqual([
      { field: 'purpose', before: 'first', after: 'second' },
      { field: 'writes', before: false, after: true },
    ]);
    expect(d.graph.nodes.added).toEqual([{ id: 'review', type: 'model', line: 11 }]);
    expect(d.graph.nodes.removed).toEqual([{ id: 'old', type: 'tool', line: 10 }]);
    expect(d.graph.nodes.changed).toEqual([
      {
        id: 'work',
        changes: [
          { field: 'profile', before: 'read_only', after: 'workspace_write' },
          {
            field: 'touches',
            before: ['workspace.read', 'tickets.read'],
            after: ['workspace.read', 'workspace.write', 'shell.run'],
          },
          { field: 'inlets', before: ['start'], after: ['start', 'revise'] },
        ],
      },
    ]);
    expect(d.graph.cords.added).toEqual([{ from: 'gate.approved', to: 'review.start' }]);
    expect(d.graph.cords.removed).toEqual([{ from: 'gate.approved', to: 'old.in' }]);
  });

  test('moving a node without changing it is not a change', () => {
    const moved = A.replace(
      '  work: { type: model, role: worker, profile: read_only }\n  gate: { type: builtin, builtin: human_gate }\n',
      '  gate: { type: builtin, builtin: human_gate }\n  work: { type: model, role: worker, profile: read_only }\n',
    );
    const d = diffTemplates({ name: 'a', source: A }, { name: 'a', source: moved }, catalogue);
    expect(d.identical).toBe(false);
    expect(d.graph.nodes).toEqual({ added: [], removed: [], changed: [] });
  });

  test('an unreadable side diffs as empty, best-effort', () => {
    const d = diffTemplates({ name: 'a', source: 'nodes: [' }, { name: 'a', source: A }, catalogue);
    expect(d.graph.nodes.added.map((n) => n.id)).toEqual(['work', 'gate', 'old']);
    expect(d.graph.cords.added).toHaveLength(2);
    expect(d.graph.header.find((h) => h.field === 'name')).toEqual({ field: 'name', before: null, after: 'a' });
  });

  test('an invalid side still shows what changed', () => {
    const invalid = A.replace('profile: read_only', 'profile: nonsense');
    const d = diffTemplates({ name: 'a', source: A }, { name: 'a', source: invalid }, catalogue);
    expect(d.graph.nodes.changed[0]?.changes[0]).toEqual({ field: 'profile', before: 'read_only', after: 'nonsense' });
  });
});
