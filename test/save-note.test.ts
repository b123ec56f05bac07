/**
 * A save's note (docs/api.md, "Save with a note"): one line of at most 200
 * characters, the history entry's subject; refused with 422 and its own
 * problem code otherwise; an unknown body key is still 400. A restore
 * handed its version's shipped hash keeps that marker, so it reads
 * shipped_changed_since. And the graph diff lists every field that
 * differs, max_visits among them.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import { afterEach, describe, expect, it, test } from 'vitest';
import type { Library, WriteOptions } from '../src/library/types.js';
import type { Catalogue } from '../src/template/model.js';
import { diffTemplates } from '../src/template/diff.js';
import { ALPHA, API, openApp } from './http-fixture.js';
import { fixture, rejection, tpl } from './library-helpers.js';

const git = (root: string, ...args: string[]) =>
  execFileSync('git', args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', GIT_DIR: join(root, '.git'), GIT_WORK_TREE: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

describe('the save note over HTTP', () => {
  const ctx = openApp();
  const call = async (opts: InjectOptions) => {
    const r = await ctx.app.inject(opts);
    return { status: r.statusCode, body: r.json() as { code?: string; state?: string; problems?: { code: string; path: string }[]; versions?: { message: string }[] } };
  };
  const put = (payload: object) => call({ method: 'PUT', url: `${API}/templates/alpha`, payload });
  const edited = ALPHA.replace('purpose: one worker then a gate', 'purpose: one worker, then a gate');

  test('a note becomes the history subject: `save alpha: tighten the gate`', async () => {
    expect((await put({ source: edited, note: '  tighten the gate ' })).status).toBe(200);
    const h = await call({ url: `${API}/templates/alpha/history` });
    expect(h.body.versions?.[0]?.message).toBe('save alpha: tighten the gate');
  });

  test.each([
    ['two lines', 'first line\nsecond line'],
    ['a carriage return', 'first\rsecond'],
    ['201 characters', 'x'.repeat(201)],
  ])('a note of %s is 422 with note.invalid at /note, and nothing is written', async (_what, note) => {
    const r = await put({ source: edited, note });
    expect(r.status).toBe(422);
    expect(r.body.problems).toEqual([expect.objectContaining({ code: 'note.invalid', path: '/note' })]);
    expect((await call({ url: `${API}/templates/alpha` })).body).toHaveProperty('state', 'shipped');
  });

  test('200 characters pass; an unknown body key is still 400', async () => {
    expect((await put({ source: edited, note: 'y'.repeat(200) })).status).toBe(200);
    expect((await put({ source: edited, notes: 'typo' })).status).toBe(400);
  });

  test('a role save takes a note; a reset with one is 400', async () => {
    const r = await call({ method: 'POST', url: `${API}/role`, payload: { name: 'worker', role_md: '# Worker\n\nDoes more.\n', note: 'say more' } });
    expect(r.status).toBe(200);
    const h = await call({ url: `${API}/roles/worker/history` });
    expect(h.body.versions?.[0]?.message).toBe('save role worker: say more');
    expect((await call({ method: 'POST', url: `${API}/role`, payload: { name: 'worker', role_md: 'x\n', note: 'a\nb' } })).status).toBe(422);
    expect((await call({ method: 'POST', url: `${API}/role`, payload: { name: 'worker', reset: true, note: 'why' } })).status).toBe(400);
  });
});

describe('a restore keeps its version’s marker', () => {
  let lib: Library | null = null;
  afterEach(async () => {
    await lib?.close();
    lib = null;
  });

  it('a version saved against an older shipped version reads shipped_changed_since once restored', async () => {
    const f = await fixture();
    lib = await f.open();
    const mine = tpl('alpha', 'mine, against the first shipped alpha');
    await lib.saveTemplate('alpha', mine);
    await lib.history.settle();
    const oldShipped = git(f.root, 'show', 'HEAD:templates/.alpha.shipped').split('\n')[0]!;
    await lib.close();
    // a new shipped alpha; the copy is acknowledged onto it, then edited again
    await writeFile(join(f.harness, 'templates', 'alpha.yaml'), tpl('alpha', 'alpha, shipped again'));
    lib = await f.open();
    expect((await lib.getTemplate('alpha'))?.state).toBe('shipped_changed_since');
    await lib.acknowledgeTemplate('alpha');
    await lib.saveTemplate('alpha', tpl('alpha', 'mine, against the second'));
    expect((await lib.getTemplate('alpha'))?.state).toBe('edited');

    // the first version again, with the shipped hash its marker names (what a restore passes on)
    const opts: WriteOptions = { restoredFrom: 'abcdef0', restoredShipped: oldShipped };
    const restored = await lib.saveTemplate('alpha', mine, opts);
    expect(restored.state).toBe('shipped_changed_since');
    // a plain save of the same bytes is against today's shipped version
    await lib.saveTemplate('alpha', `${mine}# again\n`);
    expect((await lib.getTemplate('alpha'))?.state).toBe('edited');
  });

  it('a note with a control character is refused by the library itself', async () => {
    const f = await fixture();
    lib = await f.open();
    const opts: WriteOptions = { note: 'bell\u0007' };
    const r = await rejection(lib.saveTemplate('alpha', tpl('alpha', 'x'), opts));
    expect(r.code).toBe('invalid_template');
    expect(r.extra.problems.map((p) => p.code)).toEqual(['note.invalid']);
  });
});

describe('the graph diff lists every field', () => {
  const emptyCatalogue: Catalogue = { roles: new Set(['worker']), templates: new Set() };
  const A = `template:
  name: a
  purpose: p
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker, profile: read_only, max_visits: 4 }
  check: { type: builtin, builtin: human_gate }
cords:
  - { from: work.done, to: check.in }
  - { from: check.rejected, to: work.start }
`;
  it('max_visits 4 → 5 is a change of its node', () => {
    const d = diffTemplates({ name: 'a', source: A }, { name: 'a', source: A.replace('max_visits: 4', 'max_visits: 5') }, emptyCatalogue);
    expect(d.graph.nodes.changed).toEqual([{ id: 'work', changes: [{ field: 'max_visits', before: 4, after: 5 }] }]);
  });
  it('a node moved to another line is not changed', () => {
    const moved = A.replace('  work: { type: model, role: worker, profile: read_only, max_visits: 4 }\n  check: { type: builtin, builtin: human_gate }\n', '  check: { type: builtin, builtin: human_gate }\n  work: { type: model, role: worker, profile: read_only, max_visits: 4 }\n');
    expect(moved).not.toBe(A);
    const d = diffTemplates({ name: 'a', source: A }, { name: 'a', source: moved }, emptyCatalogue);
    expect(d.graph.nodes.changed).toEqual([]);
  });
});
