/** Diff, rebase and propose (docs/api.md): they compare and write nothing. */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { App } from '../src/app.js';
import { ALPHA, API, BETA, type Fixture, fixture } from './http-fixture.js';

/** alpha with a third node: lines apart from the purpose line, so edits to both merge. */
const ALPHA_V1 = ALPHA.replace(
  'cords:\n',
  '  done: { type: builtin, builtin: save_document }\ncords:\n',
).replace('  - { from: work.done, to: gate.in }\n', '  - { from: work.done, to: gate.in }\n  - { from: gate.approved, to: done.in }\n');
const COPY = ALPHA_V1.replace('one worker then a gate', 'my own purpose');

let fx: Fixture;
let app: App;
beforeEach(async () => {
  fx = await fixture();
  await fx.ship('alpha', ALPHA_V1);
  app = await fx.open();
});
afterEach(async () => {
  await app.close();
  await fx.cleanup();
});

const put = (name: string, source: string) =>
  app.inject({ method: 'PUT', url: `${API}/templates/${name}`, payload: { source } });
const diff = (name: string, against?: string) =>
  app.inject({ url: `${API}/templates/${name}/diff${against === undefined ? '' : `?against=${against}`}` });
const rebase = (name: string) => app.inject({ method: 'POST', url: `${API}/templates/${name}/rebase` });

async function shipAndReopen(source: string): Promise<void> {
  await fx.ship('alpha', source);
  await app.close();
  app = await fx.open();
}

describe('GET /templates/:name/diff', () => {
  test('a shipped name defaults to against=shipped; an unedited one is identical', async () => {
    const r = await diff('alpha');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ against: { name: 'alpha', kind: 'shipped' }, identical: true, unified: '' });
  });

  test('an edited copy against shipped: unified and graph', async () => {
    await put('alpha', COPY.replace('profile: read_only', 'profile: web_research'));
    const body = (await diff('alpha', 'shipped')).json();
    expect(body.identical).toBe(false);
    expect(body.unified).toContain('--- shipped/alpha.yaml');
    expect(body.unified).toContain('+  purpose: my own purpose');
    expect(body.graph.header).toEqual([{ field: 'purpose', before: 'one worker then a gate', after: 'my own purpose' }]);
    expect(body.graph.nodes.changed[0].id).toBe('work');
    expect(body.graph.nodes.changed[0].changes.map((c: { field: string }) => c.field)).toEqual(['profile', 'touches']);
  });

  test('against=base, and against another template by name', async () => {
    const base = (await diff('beta', 'base')).json();
    expect(base.against).toEqual({ name: 'alpha', kind: 'base' });
    expect(base.graph.nodes.added.map((n: { id: string }) => n.id)).toEqual(['review']);
    const other = (await diff('alpha', 'beta')).json();
    expect(other.against).toEqual({ name: 'beta', kind: 'template' });
    expect(other.graph.nodes.removed.map((n: { id: string }) => n.id)).toEqual(['review']);
  });

  test('a custom template defaults to base; with no base it is 409 no_base', async () => {
    const gamma = BETA.replaceAll('beta', 'gamma');
    await put('gamma', gamma);
    expect((await diff('gamma')).json().against).toEqual({ name: 'alpha', kind: 'base' });
    await put('delta', ALPHA.replaceAll('alpha', 'delta'));
    const r = await diff('delta');
    expect(r.statusCode).toBe(409);
    expect(r.json().code).toBe('no_base');
  });

  test('nothing to diff against: not_shipped, not_found, invalid_name', async () => {
    await put('delta', ALPHA.replaceAll('alpha', 'delta'));
    expect((await diff('delta', 'shipped')).json().code).toBe('not_shipped');
    const missing = await diff('alpha', 'nope');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('not_found');
    expect((await diff('alpha', 'Not..A..Name')).json().code).toBe('invalid_name');
    expect((await diff('nope')).statusCode).toBe(404);
  });
});

describe('POST /templates/:name/rebase', () => {
  test('a clean merge keeps the copy and takes the shipped change; nothing is written', async () => {
    await put('alpha', COPY);
    await shipAndReopen(ALPHA_V1.replace('save_document }', 'save_document, document: notes }'));
    const r = await rebase('alpha');
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.conflicts).toBe(0);
    expect(body.valid).toBe(true);
    expect(body.problems).toEqual([]);
    expect(body.merged).toContain('purpose: my own purpose');
    expect(body.merged).toContain('document: notes');
    expect(await fx.read('templates', 'alpha.yaml')).toBe(COPY);
  });

  test('a conflict comes back with markers, counted, and not valid', async () => {
    await put('alpha', COPY);
    await shipAndReopen(ALPHA_V1.replace('one worker then a gate', 'the shipped purpose'));
    const body = (await rebase('alpha')).json();
    expect(body.conflicts).toBe(1);
    expect(body.valid).toBe(false);
    expect(body.merged).toContain(
      '<<<<<<< copy\n  purpose: my own purpose\n||||||| base\n  purpose: one worker then a gate\n=======\n  purpose: the shipped purpose\n>>>>>>> shipped\n',
    );
    // the same conflict as a part, so the page can offer it as a choice
    expect(body.parts.filter((p: { kind: string }) => p.kind === 'conflict')).toEqual([
      { kind: 'conflict', copy: '  purpose: my own purpose\n', base: '  purpose: one worker then a gate\n', theirs: '  purpose: the shipped purpose\n' },
    ]);
    expect(await fx.read('templates', 'alpha.yaml')).toBe(COPY);
  });

  test('409 nothing_to_rebase: no copy, a custom template, shipped unchanged since the save', async () => {
    expect((await rebase('alpha')).json().code).toBe('nothing_to_rebase');
    await put('gamma', ALPHA.replaceAll('alpha', 'gamma'));
    expect((await rebase('gamma')).json().code).toBe('nothing_to_rebase');
    await put('alpha', COPY);
    const r = await rebase('alpha');
    expect(r.statusCode).toBe(409);
    expect(r.json().code).toBe('nothing_to_rebase');
  });

  test('409 no_kept_base for a copy written by hand', async () => {
    await fx.write(COPY, 'templates', 'alpha.yaml');
    const r = await rebase('alpha');
    expect(r.statusCode).toBe(409);
    expect(r.json().code).toBe('no_kept_base');
  });
});

describe('POST /templates/propose', () => {
  const propose = (payload: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: `${API}/templates/propose`, payload });

  test('a new variant: its card diffs against the base; nothing is written', async () => {
    const source = BETA.replaceAll('beta', 'omega');
    const r = await propose({ name: 'omega', purpose: 'alpha with a review', source });
    expect(r.statusCode).toBe(200);
    const card = r.json();
    expect(card).toMatchObject({ name: 'omega', valid: true, name_differs: false, purpose_differs: false });
    expect(card.diff.against).toEqual({ name: 'alpha', kind: 'base' });
    expect(await fx.read('templates', 'omega.yaml')).toBeNull();
  });

  test('no base: the card diffs against the library template of the same name', async () => {
    const card = (await propose({ name: 'alpha', purpose: 'x', source: COPY })).json();
    expect(card.diff.against).toEqual({ name: 'alpha', kind: 'template' });
    expect(card.purpose_differs).toBe(true);
  });

  test('an invalid proposal is still 200 with valid: false and its problems', async () => {
    const r = await propose({ name: 'zeta', purpose: 'p', source: ALPHA });
    expect(r.statusCode).toBe(200);
    const card = r.json();
    expect(card.valid).toBe(false);
    expect(card.name_differs).toBe(true);
    expect(card.problems.map((p: { code: string }) => p.code)).toContain('name.mismatch');
    expect(card.diff).toBeNull();
  });

  test('a bad name is 400 invalid_name, an unknown key 400 bad_request', async () => {
    expect((await propose({ name: 'Zeta', source: ALPHA })).json().code).toBe('invalid_name');
    expect((await propose({ name: 'zeta', source: ALPHA, extra: 1 })).json().code).toBe('bad_request');
  });
});
