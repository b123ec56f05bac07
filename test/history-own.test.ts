
import { describe, expect, it } from 'vitest';
import { ALPHA, API } from './http-fixture.js';
import { type Desk, fsckClean, get, gitIn, gitOf, openDesk, restart, save, sync, teamPerTest } from './sync-desks.js';

const team = teamPerTest('desk-own-');

const desk = (): Promise<Desk> => openDesk(team.bare, team.desks);
const custom = (p: string) => ALPHA.replace('name: alpha', 'name: mock-first').replace('purpose: one worker then a gate', `purpose: ${p}`);

interface Listed {
  commit: string;
  message: string;
  shared: boolean;
}

async function history(d: Desk, name: string): Promise<Listed[]> {
  const r = await d.app.inject({ method: 'GET', url: `${API}/templates/${name}/history?limit=100` });
  expect(r.statusCode, r.body).toBe(200);
  return r.json().versions;
}

describe("a desk's own version of a diverged name", () => {
  it('take theirs loses nothing: the own text is listed shared: false, never pushed, kept by gc, and restore brings it back', async () => {
    const [a, b] = [await desk(), await desk()];
    await save(a, 'mock-first', custom('from A'));
    await sync(a);
    await sync(b);
    await save(a, 'mock-first', custom('A again'));
    await sync(a);
    const mine = await save(b, 'mock-first', custom('from B'));
    expect((await sync(b)).diverged).toEqual(['mock-first']);
    const take = await b.app.inject({ method: 'POST', url: `${API}/sync/templates/mock-first/take` });
    expect(take.statusCode, take.body).toBe(200);
    expect((await get(b, 'mock-first')).source).toContain('A again');
    await sync(b);
    // gc with everything unreachable pruned at once: the own ref keeps B's text
    gitOf(b, 'gc', '--prune=now', '--quiet');
    expect(gitOf(b, 'log', '--all', '-p', '--', 'templates/mock-first.yaml')).toContain('from B');
    const refs = gitOf(b, 'for-each-ref', '--format=%(refname)', 'refs/desk/own/').split('\n');
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.every((r) => r.startsWith('refs/desk/own/templates/mock-first/'))).toBe(true);
    // never pushed: the remote has no such ref, nor the commits they hold
    expect(gitIn(team.bare, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/main');
    for (const r of refs) expect(() => gitIn(team.bare, 'cat-file', '-e', `${gitOf(b, 'rev-parse', r)}^{commit}`)).toThrow();
    const listed = await history(b, 'mock-first');
    const own = listed.filter((v) => !v.shared);
    expect(own.length).toBeGreaterThan(0);
    expect(listed.filter((v) => v.shared).length).toBeGreaterThan(0);
    const texts = await Promise.all(own.map(async (v) => (await b.app.inject({ method: 'GET', url: `${API}/templates/mock-first/versions/${v.commit}` })).json().source as string));
    expect(texts).toContain(custom('from B'));
    const at = own[texts.indexOf(custom('from B'))]!.commit;
    // restore takes it: the text loads again and is published as an ordinary change
    const restored = await b.app.inject({ method: 'POST', url: `${API}/templates/mock-first/restore`, payload: { commit: at } });
    expect(restored.statusCode, restored.body).toBe(200);
    expect((await get(b, 'mock-first')).source).toBe(mine.source);
    await sync(b);
    expect(gitIn(team.bare, 'show', 'main:templates/mock-first.yaml')).toContain('from B');
    // still there after a restart
    await restart(b, team.bare);
    expect(gitOf(b, 'for-each-ref', '--format=%(refname)', 'refs/desk/own/').split('\n')).toEqual(refs);
    fsckClean(a);
    fsckClean(b);
  });

  it("a role's own copy is kept the same way: listed shared: false after take theirs, and restored", async () => {
    const [a, b] = [await desk(), await desk()];
    await sync(b);
    const role = (d: Desk, md: string) => d.app.inject({ method: 'POST', url: `${API}/role`, payload: { name: 'worker', role_md: md } });
    expect((await role(a, '# Worker\n\nFrom A.\n')).statusCode).toBe(200);
    await sync(a);
    expect((await role(b, '# Worker\n\nFrom B.\n')).statusCode).toBe(200);
    expect((await sync(b)).diverged_roles).toEqual(['worker']);
    const take = await b.app.inject({ method: 'POST', url: `${API}/sync/roles/worker/take` });
    expect(take.statusCode, take.body).toBe(200);
    const r = await b.app.inject({ method: 'GET', url: `${API}/roles/worker/history?limit=100` });
    const own = (r.json().versions as Listed[]).filter((v) => !v.shared);
    expect(own).toHaveLength(1);
    expect(gitOf(b, 'for-each-ref', '--format=%(refname)', 'refs/desk/own/')).toBe('refs/desk/own/roles/worker/1');
    const restored = await b.app.inject({ method: 'POST', url: `${API}/roles/worker/restore`, payload: { commit: own[0]!.commit } });
    expect(restored.statusCode, restored.body).toBe(200);
    expect((await b.app.inject({ method: 'GET', url: `${API}/roles/worker` })).json().role_md).toBe('# Worker\n\nFrom B.\n');
    fsckClean(b);
  });
});
