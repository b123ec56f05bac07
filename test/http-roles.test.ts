/** Role routes (docs/api.md, Roles): list, read, save, reset, with states and ETags. */
import { describe, expect, test } from 'vitest';
import { API, openApp, REVIEWER_MD, WORKER_KIT, WORKER_MD } from './http-fixture.js';

const ctx = openApp();

const role = (name: string) => ctx.app.inject({ url: `${API}/roles/${name}` });
const post = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url: `${API}/role`, payload, headers });

describe('GET /roles', () => {
  test('lists the built-in roles sorted, with states and has_kit', async () => {
    const r = await ctx.app.inject({ url: `${API}/roles` });
    expect(r.statusCode).toBe(200);
    expect(r.json().roles).toEqual([
      { name: 'reviewer', shipped: true, state: 'shipped', edited_outside: false, has_kit: false, valid: true },
      { name: 'worker', shipped: true, state: 'shipped', edited_outside: false, has_kit: true, valid: true },
    ]);
  });
});

describe('GET /roles/:name', () => {
  test('answers the role and its built-in version with an ETag', async () => {
    const r = await role('worker');
    expect(r.statusCode).toBe(200);
    expect(r.headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(r.json()).toMatchObject({
      name: 'worker',
      state: 'shipped',
      role_md: WORKER_MD,
      kit: { tools: ['shell.run'] },
      shipped_role_md: WORKER_MD,
      shipped_kit: { tools: ['shell.run'] },
    });
  });

  test('404 for an unknown role; 400 invalid_name for a bad one', async () => {
    expect((await role('nobody')).json().code).toBe('not_found');
    const bad = await role('Not-A-Role');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('invalid_name');
  });
});

describe('POST /role', () => {
  test('saving unchanged words reads same_as_shipped (canonical form)', async () => {
    const r = await post({ name: 'worker', role_md: `\n${WORKER_MD}\n\n`, kit: { tools: ['shell.run'] } });
    expect(r.statusCode).toBe(200);
    expect(r.json().state).toBe('same_as_shipped');
    expect(await ctx.fx.read('roles', 'worker', 'role.md')).toBe(WORKER_MD);
    expect(await ctx.fx.read('roles', 'worker', 'kit.json')).toBe(WORKER_KIT);
  });

  test('an edit reads edited, its ETag changes, and a reset brings the built-in back', async () => {
    const before = (await role('worker')).headers.etag as string;
    const saved = await post({ name: 'worker', role_md: '# Worker\n\nDoes it differently.\n' }, { 'if-match': before });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({ state: 'edited', kit: null });
    expect(saved.headers.etag).not.toBe(before);
    expect(await ctx.fx.read('roles', 'worker', 'kit.json')).toBeNull();

    const stale = await post({ name: 'worker', reset: true }, { 'if-match': before });
    expect(stale.statusCode).toBe(412);
    const reset = await post({ name: 'worker', reset: true }, { 'if-match': saved.headers.etag as string });
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toMatchObject({ state: 'shipped', role_md: WORKER_MD });
    expect(reset.headers.etag).toBe(before);
    expect(await ctx.fx.read('roles', 'worker', 'role.md')).toBeNull();
  });

  test("an operator's own role saves as custom and appears in the list", async () => {
    const r = await post({ name: 'tester', role_md: '# Tester\n\nTests.\n', kit: { tools: ['workspace.read'] } });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ name: 'tester', state: 'custom', shipped: false, shipped_role_md: null });
    const list = (await ctx.app.inject({ url: `${API}/roles` })).json().roles;
    expect(list.map((x: { name: string }) => x.name)).toEqual(['reviewer', 'tester', 'worker']);
  });

  test('an unknown tool in the kit is 422 invalid_role and nothing is written', async () => {
    const r = await post({ name: 'reviewer', role_md: REVIEWER_MD, kit: { tools: ['rm.rf'] } });
    expect(r.statusCode).toBe(422);
    expect(r.json().code).toBe('invalid_role');
    expect(await ctx.fx.read('roles', 'reviewer', 'role.md')).toBeNull();
  });

  test('resetting a role that is not built in is 409 not_shipped', async () => {
    await post({ name: 'tester', role_md: '# Tester\n' });
    const r = await post({ name: 'tester', reset: true });
    expect(r.statusCode).toBe(409);
    expect(r.json().code).toBe('not_shipped');
  });

  test('bodies: unknown key, reset with text, save without text, reset: false', async () => {
    expect((await post({ name: 'worker', role_md: 'x', colour: 'red' })).json().code).toBe('bad_request');
    expect((await post({ name: 'worker', reset: true, role_md: 'x' })).statusCode).toBe(400);
    expect((await post({ name: 'worker' })).statusCode).toBe(400);
    expect((await post({ name: 'worker', reset: false })).statusCode).toBe(400);
    expect((await post({ name: 'worker', role_md: 'x', kit: { tools: ['shell.run'], extra: 1 } })).statusCode).toBe(400);
    expect(await ctx.fx.read('roles', 'worker', 'role.md')).toBeNull();
  });
});
