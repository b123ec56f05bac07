/**
 * The editor's completion, hover and lint marks, without a browser: where
 * the cursor is (block and flow YAML, list items, prompts), what is offered
 * there, what a hover says, and where a problem's squiggle goes.
 */
import { CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { EditorState, Text } from '@codemirror/state';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTINS } from '../../src/template/catalog/builtins.js';
import { PROFILES } from '../../src/template/catalog/profiles.js';
import { templateCompletion } from '../../src/web/editor-complete.js';
import { inputRefAt, spotAt } from '../../src/web/editor-context.js';
import { FactsReader } from '../../src/web/editor-facts.js';
import { describe as hover } from '../../src/web/editor-describe.js';
import { toDiagnostics } from '../../src/web/editor-lint.js';
import { packageRoot } from '../../src/paths.js';

const QUICK_FIX = readFileSync(join(packageRoot, 'harness', 'templates', 'quick-fix.yaml'), 'utf8');

/** `text` with `|` marking the cursor: the text without it and the offset. */
function at(marked: string): [string, number] {
  const pos = marked.indexOf('|');
  return [marked.slice(0, pos) + marked.slice(pos + 1), pos];
}

/** Inserts `typed` at the end of the first line holding `line` and returns the cursor there. */
function typedAfter(line: string, typed: string, text = QUICK_FIX): [string, number] {
  const start = text.indexOf(line);
  if (start < 0) throw new Error(`no ${line}`);
  const end = text.indexOf('\n', start);
  return [text.slice(0, end) + typed + text.slice(end), end + typed.length];
}

async function complete(text: string, pos: number, explicit = false): Promise<string[]> {
  const source = templateCompletion(async () => ({ roles: ['worker', 'writer'], templates: ['quick-fix', 'write'] }));
  const state = EditorState.create({ doc: text });
  const r = (await source(new CompletionContext(state, pos, explicit))) as CompletionResult | null;
  return r ? r.options.map((o) => o.label) : [];
}

describe('spotAt: where the cursor is', () => {
  it('a key under a node, with the keys already there', () => {
    const s = spotAt(...typedAfter('    profile: workspace_write', '\n    max'));
    expect(s).toMatchObject({ path: ['nodes', 'work'], kind: 'key', prefix: 'max' });
    expect(s.siblings).toEqual(expect.arrayContaining(['type', 'role', 'profile', 'max_visits', 'inlets', 'prompt']));
  });

  it('a value in block style and in a flow map', () => {
    expect(spotAt(...typedAfter('    type: model', '\n    profile: re'))).toMatchObject({ path: ['nodes', 'intake'], kind: 'value', key: 'profile', prefix: 're' });
    expect(spotAt(...at('nodes:\n  gate: { type: builtin, builtin: hu|'))).toMatchObject({ path: ['nodes', 'gate'], kind: 'value', key: 'builtin', prefix: 'hu' });
    expect(spotAt(...at('nodes:\n  gate: { type: builtin, bu|'))).toMatchObject({ path: ['nodes', 'gate'], kind: 'key', prefix: 'bu', siblings: ['type'] });
  });

  it('list items: header inputs and roles, cords in flow style, compact lists', () => {
    expect(spotAt(...typedAfter('      type: list', '\n      ru'))).toMatchObject({ path: ['template', 'inputs', '*'], kind: 'key' });
    expect(spotAt(...typedAfter('    - name: tickets', '\n    - name: x\n      type: st'))).toMatchObject({ path: ['template', 'inputs', '*'], kind: 'value', key: 'type' });
    expect(spotAt(...typedAfter('    - { role: worker, node: work }', '\n    - { role: x, node: cl'))).toMatchObject({ path: ['template', 'roles', '*'], key: 'node' });
    expect(spotAt(...typedAfter('  - { from: intake.done, to: work.start }', '\n  - { from: gate.'))).toMatchObject({ path: ['cords', '*'], key: 'from', prefix: 'gate.' });
    expect(spotAt(...at('cords:\n- from: a.done\n  to: b.|'))).toMatchObject({ path: ['cords', '*'], key: 'to' });
  });

  it('prompt text is a scalar, not keys', () => {
    expect(spotAt(...typedAfter('wrong, where it is, and how the fix', ' sho')).kind).toBe('scalar');
    expect(spotAt(...typedAfter('    prompt: Approve to land this fix, or reject it with a note for the worker.', '\n    wor')).kind).toBe('key');
  });

  it('a comment after a key does not make it a scalar', () => {
    expect(spotAt(...at('nodes: # the graph\n  a:\n    ty|'))).toMatchObject({ path: ['nodes', 'a'], kind: 'key' });
  });

  it('{{inputs. in a prompt', () => {
    expect(inputRefAt('Fix {{inputs.tic')).toBe('tic');
    expect(inputRefAt('Fix {{ inputs.')).toBe('');
    expect(inputRefAt('Fix {{outputs.')).toBeNull();
  });
});

describe('completion', () => {
  it('offers human_gate (and only builtins) where a builtin goes', async () => {
    const labels = await complete(...typedAfter('    builtin: human_gate', '\n  extra: { type: builtin, builtin: hu'));
    expect(labels).toContain('human_gate');
    expect(labels.sort()).toEqual(Object.keys(BUILTINS).sort());
  });

  it('offers node types, profiles, roles from the library, and the keys a node still lacks', async () => {
    expect(await complete(...at('nodes:\n  a:\n    type: m|'))).toEqual(['model', 'builtin', 'tool']);
    expect((await complete(...at('nodes:\n  a:\n    type: model\n    profile: r|'))).sort()).toEqual(Object.keys(PROFILES).sort());
    expect(await complete(...at('nodes:\n  a:\n    type: model\n    role: w|'))).toEqual(['worker', 'writer']);
    const keys = await complete(...at('nodes:\n  a:\n    type: model\n    pr|'));
    expect(keys).toEqual(expect.arrayContaining(['role', 'profile', 'prompt', 'max_visits']));
    expect(keys).not.toContain('type');
    expect(keys).not.toContain('tool'); // a model node's keys only, once its type is known
  });

  it('offers a builtin node only the arguments its builtin takes', async () => {
    const keys = await complete(...at('nodes:\n  p:\n    type: builtin\n    builtin: capability_assert\n    o|'));
    expect(keys).toContain('over');
    expect(keys).not.toContain('prompt');
    expect(await complete(...at('nodes:\n  p: { type: builtin, builtin: capability_assert, over: c| }'))).toEqual(['complete_ticket', 'land_workspace', 'cite_sources']);
  });

  it('offers outlets after from:, inlets after to:, node ids for entry, inlets of the entry for inlet', async () => {
    const from = await complete(...typedAfter('  - { from: intake.done, to: work.start }', '\n  - { from: gate.'));
    expect(from).toEqual(expect.arrayContaining(['gate.approved', 'gate.rejected', 'work.done', 'land.conflict']));
    expect(from).not.toContain('gate.in');
    const to = await complete(...typedAfter('  - { from: intake.done, to: work.start }', '\n  - { from: gate.approved, to: w'));
    expect(to).toEqual(expect.arrayContaining(['work.start', 'work.revise', 'gate.in']));
    expect(to).not.toContain('gate.approved');
    expect(await complete(...typedAfter('  entry: intake', '\n  terminal: c'))).toEqual(expect.arrayContaining(['intake', 'work', 'close']));
  });

  it('offers the declared inputs after {{inputs.', async () => {
    expect(await complete(...typedAfter('Approve to land this fix, or reject it with a note for the worker.', ' {{inputs.'))).toEqual(['tickets']);
  });

  it('stays quiet on an empty line unless asked', async () => {
    expect(await complete(...at('nodes:\n  a:\n    |'))).toEqual([]);
    expect(await complete(...at('nodes:\n  a:\n    |'), true)).toContain('type');
  });
});

describe('hover', () => {
  const say = (text: string, word: string, nth = 0) => {
    let start = -1;
    for (let i = 0; i <= nth; i++) start = text.indexOf(word, start + 1);
    const lineStart = text.lastIndexOf('\n', start) + 1;
    const lineEnd = text.indexOf('\n', start);
    return hover(text, start + word.length, text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd), start - lineStart, word, new FactsReader().of(text));
  };

  it('says what a builtin, a profile, a node in a cord and an input are', () => {
    expect(say(QUICK_FIX, 'human_gate')).toEqual(['builtin human_gate', BUILTINS.human_gate.description, 'inlets: in; outlets: approved, rejected']);
    expect(say(QUICK_FIX, 'read_only')?.[1]).toBe(`touches ${PROFILES.read_only.join(', ')}`);
    expect(say(QUICK_FIX, 'gate.approved')?.slice(0, 2)).toEqual(['node gate', 'builtin human_gate']);
    expect(say(QUICK_FIX, 'tickets', 1)?.[0]).toBe('input tickets');
  });

  it('says what a key means, from the schema', () => {
    expect(say(QUICK_FIX, 'entry')?.[0]).toBe('entry (required)');
    expect(say(QUICK_FIX, 'max_visits')?.[1]).toMatch(/how many times a run may enter this node/);
  });
});

describe('lint marks', () => {
  it('a problem marks its 1-based line and column to the end of the word there', () => {
    const line = '  a: { type: model, profile: everything }';
    const doc = Text.of(['nodes:', line]);
    const column = line.indexOf('everything') + 1;
    const [d] = toDiagnostics(doc, [{ code: 'model.profile_unknown', severity: 'error', message: 'm', path: '/nodes/a/profile', line: 2, column }]);
    expect(doc.sliceString(d!.from, d!.to)).toBe('everything');
    expect(d).toMatchObject({ severity: 'error', source: 'model.profile_unknown' });
  });

  it('a problem without a line shows only in the panel; one past the end is clamped', () => {
    const doc = Text.of(['a: 1']);
    expect(toDiagnostics(doc, [{ code: 'template.missing', severity: 'error', message: 'm', path: '' }])).toEqual([]);
    const [d] = toDiagnostics(doc, [{ code: 'x', severity: 'warning', message: 'm', path: '', line: 9, column: 99 }]);
    expect(d).toMatchObject({ from: 4, to: 4 });
  });
});
