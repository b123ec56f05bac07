/**
 * Never a 5xx from the proposal routes for a client's mistake: random methods,
 * ids (well formed, traversal, unicode), bodies (wrong types, unknown keys,
 * huge or multi-line purposes, binary) and preconditions, over the real app.
 * Each answer is below 500, each refusal is problem+json with a code, and a
 * refused write keeps nothing.
 */
import fc from 'fast-check';
import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.js';
import { ALPHA, API, type Fixture, fixture } from './http-fixture.js';

const GAMMA = ALPHA.replaceAll('alpha', 'gamma');
let fx: Fixture;
let app: App;
let known: string;

beforeAll(async () => {
  fx = await fixture();
  app = await fx.open();
  const r = await app.inject({ method: 'POST', url: `${API}/proposals`, payload: { name: 'gamma', purpose: 'kept', source: GAMMA } });
  known = r.json().id;
});
afterAll(async () => {
  await app.close();
  await fx.cleanup();
});

const id = fc.oneof(
  fc.constant(() => known),
  fc.constantFrom('000000000-00000000000000000000', '..', '%2e%2e%2fetc', 'x'.repeat(300), 'ünïcode', '0mx3txks4-072cd16e67aa315dbef3.json').map((s) => () => s),
  fc.stringMatching(/^[0-9a-z]{9}-[0-9a-f]{20}$/).map((s) => () => s),
);
const path = fc.oneof(
  fc.constant(() => '/proposals'),
  fc.constantFrom('', '?status=pending', '?status=all', '?status=decided', '?status=x', '?status[]=all', '?__proto__[x]=1').map((q) => () => `/proposals${q}`),
  fc.tuple(id, fc.constantFrom('', '/save', '/dismiss', '/nothing')).map(([i, s]) => () => `/proposals/${encodeURIComponent(i())}${s}`),
);
const value = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('', ' ', 'a\nb', 'gamma', 'Gamma', '123', 'x'.repeat(2001), GAMMA, `${GAMMA}#${'x'.repeat(140 * 1024)}`),
  fc.integer(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
);
const body = fc.oneof(
  fc.constant(undefined),
  fc.dictionary(fc.constantFrom('name', 'purpose', 'source', 'from', 'note', 'extra', '__proto__'), value, { maxKeys: 5 }).map((o) => JSON.stringify(o)),
  fc.string({ unit: 'binary', maxLength: 60 }),
);

test('random requests to the proposal routes never answer 5xx; refusals keep nothing', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
      path,
      body,
      fc.option(fc.constantFrom('*', '"x"', '', 'W/"x"', '"0"'), { nil: undefined }),
      async (method, p, b, pre) => {
        const before = (await readdir(fx.at('proposals'))).sort();
        const headers: Record<string, string> = {};
        if (b !== undefined) headers['content-type'] = 'application/json';
        if (pre !== undefined) headers[pre === '*' ? 'if-none-match' : 'if-match'] = pre;
        const r = await app.inject({ method, url: `${API}${p()}`, headers, ...(b === undefined ? {} : { payload: b }) });
        expect(r.statusCode, `${method} ${p()} ${r.body.slice(0, 200)}`).toBeLessThan(500);
        if (r.statusCode >= 400) {
          expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(typeof r.json().code).toBe('string');
          expect((await readdir(fx.at('proposals'))).sort()).toEqual(before);
        }
      },
    ),
    { numRuns: 150, seed: 12 },
  );
});
