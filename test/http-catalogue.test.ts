/** GET /catalogue (docs/api.md, Catalogue): exactly the catalogue the library validates saves against. */
import { describe, expect, test } from 'vitest';
import { API, BETA, openApp } from './http-fixture.js';

const ctx = openApp();
const catalogue = () => ctx.app.inject({ url: `${API}/catalogue` });

describe('GET /catalogue', () => {
  test('the built-in roles, the templates and the kits, sorted, not cached', async () => {
    const r = await catalogue();
    expect(r.statusCode).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
    const c = r.json() as { roles: string[]; templates: string[]; kits: Record<string, string[]> };
    expect(c.roles).toEqual(['reviewer', 'worker']);
    expect(c.kits).toEqual({ worker: ['shell.run'] });
    // the library's template names: the fixture's and the names it always knows (ticket-input, for \`base\`)
    expect(c.templates).toEqual(expect.arrayContaining(['alpha', 'beta']));
    expect(c.templates).toEqual([...c.templates].sort());
  });

  test('follows writes: an operator role with its kit, a new template', async () => {
    const role = await ctx.app.inject({ method: 'POST', url: `${API}/role`, payload: { name: 'auditor', role_md: '# Auditor\n', kit: { tools: ['workspace.read'] } } });
    expect(role.statusCode).toBe(200);
    const put = await ctx.app.inject({
      method: 'PUT',
      url: `${API}/templates/gamma`,
      headers: { 'content-type': 'application/json', 'if-none-match': '*' },
      payload: { source: BETA.replace('name: beta', 'name: gamma') },
    });
    expect(put.statusCode, put.body).toBe(200);
    const c = (await catalogue()).json() as { roles: string[]; templates: string[]; kits: Record<string, string[]> };
    expect(c.roles).toEqual(['auditor', 'reviewer', 'worker']);
    expect(c.templates).toContain('gamma');
    expect(c.kits).toEqual({ auditor: ['workspace.read'], worker: ['shell.run'] });
  });

  test('is what a save is checked against: a role the catalogue lacks is refused by the save too', async () => {
    const { roles } = (await catalogue()).json() as { roles: string[] };
    expect(roles).not.toContain('auditor');
    const put = await ctx.app.inject({
      method: 'PUT',
      url: `${API}/templates/gamma`,
      headers: { 'content-type': 'application/json', 'if-none-match': '*' },
      payload: { source: BETA.replace('name: beta', 'name: gamma').replace('role: reviewer', 'role: auditor') },
    });
    expect(put.statusCode).toBe(422);
    expect(put.json().problems.map((p: { code: string }) => p.code)).toContain('model.role_unknown');
  });
});
