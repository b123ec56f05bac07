/**
 * The history routes under hostile input (docs/api.md, History): commit ids,
 * `before`, `limit` and `against` that are odd, too long, revision
 * expressions or options, against real and unknown commits. Never a 5xx,
 * every refusal problem+json with a code, and a refusal changes no file of
 * the library (its templates and roles; .git is git's).
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { ALPHA, API, openApp } from './http-fixture.js';
import { snapshotTree } from './proof-helpers.js';

const ctx = openApp('file');

/** Things a client might send where a commit goes: a few real ones are added once they exist. */
const ODD = ['HEAD', 'HEAD~1', 'main', '--output=/tmp/x', '-p', '@{0}', '0'.repeat(39), 'A'.repeat(40), 'f'.repeat(64), ':/save', '..', '%2e%2e', 'abc', 'deadbeef^', 'deadbeef:templates/alpha.yaml', ''];

test('odd commits, pages and against: never a 5xx, refusals coded, and a refusal changes nothing', { timeout: 240_000 }, async () => {
  const put = (n: number) => ctx.app.inject({ method: 'PUT', url: `${API}/templates/alpha`, payload: { source: ALPHA.replace('gate\n', `gate ${n}\n`) } });
  for (const n of [1, 2]) expect((await put(n)).statusCode).toBe(200);
  expect((await ctx.app.inject({ method: 'POST', url: `${API}/role`, payload: { name: 'worker', role_md: '# W\n\nx.\n' } })).statusCode).toBe(200);
  const real = ((await ctx.app.inject({ url: `${API}/history` })).json().commits as { commit: string }[]).map((c) => c.commit);
  expect(real.length).toBeGreaterThan(0);
  const commit = fc.oneof(fc.constantFrom(...ODD, ...real, ...real.map((c) => c.slice(0, 7))), fc.string({ maxLength: 50 }), fc.stringMatching(/^[0-9a-f]{7,41}$/));
  const name = fc.constantFrom('alpha', 'beta', 'nobody', 'worker', 'reviewer', 'Bad_Name', '..');
  const kind = fc.constantFrom('templates', 'roles');
  const limit = fc.oneof(fc.constantFrom('0', '1', '100', '101', '-1', '1e2', ' 5', '007'), fc.string({ maxLength: 5 }));
  const enc = encodeURIComponent;
  const request = fc.oneof(
    fc.tuple(kind, name, limit, fc.option(commit, { nil: undefined })).map(([k, n, l, b]) => ({ method: 'GET' as const, url: `${API}/${k}/${enc(n)}/history?limit=${enc(l)}${b === undefined ? '' : `&before=${enc(b)}`}` })),
    fc.tuple(kind, name, commit).map(([k, n, c]) => ({ method: 'GET' as const, url: `${API}/${k}/${enc(n)}/versions/${enc(c)}` })),
    fc.tuple(kind, name, commit).map(([k, n, c]) => ({ method: 'GET' as const, url: `${API}/${k}/${enc(n)}/diff?against=${enc(`version:${c}`)}` })),
    fc.tuple(kind, name, fc.oneof(commit, fc.jsonValue({ maxDepth: 1 })), fc.constantFrom(undefined, '"nope"', '*')).map(([k, n, c, m]) => ({
      method: 'POST' as const,
      url: `${API}/${k}/${enc(n)}/restore`,
      payload: { commit: c },
      headers: m ? { 'if-match': m } : {},
    })),
    fc.tuple(limit, fc.option(commit, { nil: undefined })).map(([l, b]) => ({ method: 'GET' as const, url: `${API}/history?limit=${enc(l)}${b === undefined ? '' : `&before=${enc(b)}`}` })),
  );
  const files = async () => {
    const t = await snapshotTree(ctx.fx.root!);
    return [...t].filter(([p]) => p.startsWith('templates/') || p.startsWith('roles/'));
  };
  const statuses: Record<number, number> = {};
  let before = await files();
  await fc.assert(
    fc.asyncProperty(request, async (r) => {
      const res = await ctx.app.inject(r);
      const where = `${res.statusCode} for ${r.method} ${r.url} ${JSON.stringify('payload' in r ? r.payload : '')}`;
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      expect(res.statusCode, where).toBeLessThan(500);
      const after = await files();
      if (res.statusCode >= 400) {
        expect(String(res.headers['content-type']), where).toMatch(/^application\/problem\+json/);
        expect(typeof res.json().code, where).toBe('string');
        expect(after, `changed by ${where}`).toEqual(before);
      }
      before = after;
    }),
    { numRuns: 150, seed: 20261201 },
  );
  // the runs reached past the schema: some answers were 200, and some 404
  expect(statuses[200], JSON.stringify(statuses)).toBeGreaterThan(0);
  expect(statuses[404], JSON.stringify(statuses)).toBeGreaterThan(0);
});
