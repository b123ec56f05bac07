/**
 * A template's GET carries two validators (docs/api.md, Conditional GET):
 * the strong `ETag` of the bytes that load, for If-Match on a write, and the
 * weak `desk-answer-etag` of the whole answer, for If-None-Match. The answer
 * is kept between reads (memos/answer-memo.ts), so each test changes one
 * thing the answer is made of — and only that — and asks that the weak one
 * moves and a 304 is no longer given, while the file's ETag stays.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { ALPHA, API, openApp } from './http-fixture.js';

const ctx = openApp();

const get = (name: string, headers: Record<string, string> = {}) => ctx.app.inject({ url: `${API}/templates/${name}`, headers });
const put = (name: string, source: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'PUT', url: `${API}/templates/${name}`, payload: { source }, headers });

/** The answer's validators, read from a 200. */
async function tags(name: string): Promise<{ strong: string; weak: string; body: string }> {
  const r = await get(name);
  expect(r.statusCode).toBe(200);
  return { strong: String(r.headers.etag), weak: String(r.headers['desk-answer-etag']), body: r.body };
}

const AUDITED = `template:
  name: audited
  purpose: a worker and an auditor
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker, profile: read_only }
  audit: { type: model, role: auditor, profile: read_only }
  gate: { type: builtin, builtin: human_gate }
cords:
  - { from: work.done, to: audit.start }
  - { from: audit.done, to: gate.in }
`;

describe('GET /templates/:name, conditional', () => {
  test('a weak answer ETag beside the strong one; If-None-Match with it is 304 with no body', async () => {
    const t = await tags('alpha');
    expect(t.weak).toMatch(/^W\/"[A-Za-z0-9_-]{43}"$/);
    expect(t.strong).toMatch(/^"[0-9a-f]{64}"$/);
    const again = await tags('alpha');
    expect(again).toEqual(t);
    const r = await get('alpha', { 'if-none-match': t.weak });
    expect(r.statusCode).toBe(304);
    expect(r.body).toBe('');
    expect(r.headers.etag).toBe(t.strong);
    expect(r.headers['desk-answer-etag']).toBe(t.weak);
    // one of a list, and the weak comparison RFC 9110 asks for
    expect((await get('alpha', { 'if-none-match': `W/"other", ${t.weak}` })).statusCode).toBe(304);
    expect((await get('alpha', { 'if-none-match': t.weak.slice(2) })).statusCode).toBe(304);
    expect((await get('alpha', { 'if-none-match': '*' })).statusCode).toBe(304);
  });

  test('the write ETag in If-None-Match is never a 304: it does not cover the card', async () => {
    const t = await tags('alpha');
    const r = await get('alpha', { 'if-none-match': t.strong });
    expect(r.statusCode).toBe(200);
    expect(r.body).toBe(t.body);
    expect((await get('alpha', { 'if-none-match': `W/${t.strong}` })).statusCode).toBe(200);
  });

  test('a save moves both; the old weak ETag is answered in full', async () => {
    const t = await tags('alpha');
    expect((await put('alpha', ALPHA.replace('one worker then a gate', 'one worker, saved'), { 'if-match': t.strong })).statusCode).toBe(200);
    const after = await tags('alpha');
    expect(after.strong).not.toBe(t.strong);
    expect(after.weak).not.toBe(t.weak);
    const r = await get('alpha', { 'if-none-match': t.weak });
    expect(r.statusCode).toBe(200);
    expect(r.json().card.purpose).toBe('one worker, saved');
  });

  test("the base changing moves the variant's weak ETag, not its file's", async () => {
    const t = await tags('beta');
    expect(JSON.parse(t.body).card.diff.against).toEqual({ name: 'alpha', kind: 'base' });
    expect((await put('alpha', ALPHA.replace('human_gate', 'human_gate, max_visits: 2'))).statusCode).toBe(200);
    const after = await tags('beta');
    expect(after.strong).toBe(t.strong);
    expect(after.weak).not.toBe(t.weak);
    expect(JSON.parse(after.body).card.diff.unified).not.toBe(JSON.parse(t.body).card.diff.unified);
    expect((await get('beta', { 'if-none-match': t.weak })).statusCode).toBe(200);
  });

  test('a role added by hand moves the weak ETag of a template that names it, not its file ETag', async () => {
    // not valid yet (no role auditor), so written by hand: a save would be refused
    await ctx.fx.write(AUDITED, 'templates', 'audited.yaml');
    const t = await tags('audited');
    expect(JSON.parse(t.body).valid).toBe(false);
    await ctx.fx.write('# Auditor\n', 'roles', 'auditor', 'role.md');
    const after = await tags('audited');
    expect(after.strong).toBe(t.strong);
    expect(after.weak).not.toBe(t.weak);
    expect(JSON.parse(after.body).valid).toBe(true);
    expect((await get('audited', { 'if-none-match': t.weak })).statusCode).toBe(200);
    // and removed again: the answer of before, the same validator
    await rm(ctx.fx.at('roles', 'auditor'), { recursive: true });
    expect((await tags('audited')).weak).toBe(t.weak);
  });

  test("a role's kit changed by hand moves the weak ETag (what its nodes touch)", async () => {
    const t = await tags('alpha');
    await mkdir(ctx.fx.at('roles', 'worker'), { recursive: true });
    await writeFile(ctx.fx.at('roles', 'worker', 'role.md'), '# Worker\n');
    await writeFile(ctx.fx.at('roles', 'worker', 'kit.json'), '{\n  "tools": [\n    "shell.run",\n    "tickets.update"\n  ]\n}\n');
    const after = await tags('alpha');
    expect(after.strong).toBe(t.strong);
    expect(after.weak).not.toBe(t.weak);
  });

  test('a new shipped version moves the weak ETag of an edited copy, not its file ETag', async () => {
    const edited = ALPHA.replace('one worker then a gate', 'one worker, edited');
    expect((await put('alpha', edited)).statusCode).toBe(200);
    const t = await tags('alpha');
    await ctx.fx.ship('alpha', ALPHA.replace('one worker then a gate', 'one worker then a gate, shipped anew'));
    await ctx.reopen();
    const after = await tags('alpha');
    expect(after.strong).toBe(t.strong);
    expect(after.weak).not.toBe(t.weak);
    expect((await get('alpha', { 'if-none-match': t.weak })).statusCode).toBe(200);
  });

  test('If-Match on a write takes the strong ETag only: the weak one is 412 and writes nothing', async () => {
    const t = await tags('alpha');
    const refused = await put('alpha', ALPHA.replace('one worker then a gate', 'not this'), { 'if-match': t.weak });
    expect(refused.statusCode).toBe(412);
    expect(refused.json().code).toBe('precondition_failed');
    expect(await ctx.fx.read('templates', 'alpha.yaml')).toBeNull();
    expect((await put('alpha', ALPHA.replace('one worker then a gate', 'this'), { 'if-match': t.strong })).statusCode).toBe(200);
  });
});
