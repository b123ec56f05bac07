/**
 * A history page's cursor (docs/history.md, The walk): `before` and `cursor`
 * together, or a cursor of another form, are refused with 400; a cursor
 * whose commits this repository does not hold answers an empty page. The
 * walk itself, over two desks merging each other, is
 * test/history-walk.test.ts (in `npm run test:proof`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Library } from '../src/library/types.js';
import { fixture, tpl } from './library-helpers.js';

const API = '/api/desk';

let libs: Library[] = [];
afterEach(async () => {
  for (const l of libs) await l.close();
  libs = [];
});

async function openDesk(f: Awaited<ReturnType<typeof fixture>>): Promise<Library> {
  const lib = await f.open();
  libs.push(lib);
  return lib;
}

describe("a history page's cursor", () => {
  it('refuses before and cursor together, and a cursor of another form', async () => {
    const f = await fixture();
    const lib = await openDesk(f);
    await lib.saveTemplate('alpha', tpl('alpha', 'one'));
    await lib.saveTemplate('alpha', tpl('alpha', 'two'));
    const app = await buildApp({ library: lib, web: false });
    try {
      const first = (await app.inject({ url: `${API}/history?limit=1` })).json();
      expect(first.cursor).not.toBeNull();
      const both = await app.inject({ url: `${API}/history?limit=1&cursor=${first.cursor}&before=${first.next}` });
      expect(both.statusCode).toBe(400);
      expect(both.json().code).toBe('bad_request');
      for (const bad of [first.next, `${first.next}.`, `-${first.cursor}`, `${first.cursor}.x`]) {
        expect((await app.inject({ url: `${API}/templates/alpha/history?cursor=${bad}` })).statusCode).toBe(400);
      }
      // a cursor whose commits are not in this repository answers an empty page, not a 500
      const unknown = await app.inject({ url: `${API}/history?cursor=${'1'.repeat(40)}.${'2'.repeat(40)}` });
      expect(unknown.statusCode).toBe(200);
      expect(unknown.json()).toMatchObject({ commits: [], next: null, cursor: null });
    } finally {
      await app.close();
    }
  });
});
