import { rm, utimes, writeFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { RACY_MS } from '../src/library/memos/entry-cache.js';
import { ALPHA, API, BETA, fixture } from './http-fixture.js';
import { testSpawner } from './test-spawner.js';

/**
 * Every hand change shows in the very next answer — for files younger than
 * the racy window (read again at every look) and for files older than it
 * (proven by their stats alone, so a broken stat check shows here) — and
 * every API route declares a schema for its 2xx answer (so fast-json-stringify
 * writes it).
 */

const custom = (name: string, purpose: string) => ALPHA.replace('name: alpha', `name: ${name}`).replace('one worker then a gate', purpose);

describe('answers are never stale', () => {
  test('the list: the same bytes while nothing changed; an edit, a new file and a deletion show at once', async () => {
    const fx = await fixture();
    const app = await fx.open();
    await fx.write(custom('mine', 'first purpose'), 'templates', 'mine.yaml');
    const list = async () => (await app.inject({ method: 'GET', url: `${API}/templates` })).json().templates as { name: string; purpose: string }[];
    const a = await app.inject({ method: 'GET', url: `${API}/templates` });
    const b = await app.inject({ method: 'GET', url: `${API}/templates` });
    expect(b.body).toBe(a.body);
    expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
    await fx.write(custom('mine', 'second purpose'), 'templates', 'mine.yaml');
    expect((await list()).find((t) => t.name === 'mine')!.purpose).toBe('second purpose');
    await fx.write(custom('fresh', 'new one'), 'templates', 'fresh.yaml');
    expect((await list()).map((t) => t.name)).toEqual(['alpha', 'beta', 'fresh', 'mine', 'ticket-input']);
    await rm(fx.at('templates', 'mine.yaml'));
    expect((await list()).map((t) => t.name)).toEqual(['alpha', 'beta', 'fresh', 'ticket-input']);
    await app.close();
    await fx.cleanup();
  });

  test('one template: an edit to it, and an edit to its base, each show in the next answer and its card', async () => {
    const fx = await fixture();
    const app = await fx.open();
    const get = async (name: string) => app.inject({ method: 'GET', url: `${API}/templates/${name}` });
    const first = await get('beta');
    expect((await get('beta')).body).toBe(first.body);
    // beta's card diffs against its base, alpha: an edit to alpha changes beta's card
    const alphaEdited = ALPHA.replace('one worker then a gate', 'one worker, then a gate');
    await fx.write(alphaEdited, 'templates', 'alpha.yaml');
    const second = await get('beta');
    expect(second.json().card.diff.against).toEqual({ name: 'alpha', kind: 'base' });
    expect(second.json().card.diff.unified).not.toBe(first.json().card.diff.unified);
    await fx.write(BETA.replace('alpha with a review', 'alpha, reviewed'), 'templates', 'beta.yaml');
    const third = await get('beta');
    expect(third.json()).toMatchObject({ state: 'edited', card: { purpose: 'alpha, reviewed' } });
    expect(third.headers.etag).not.toBe(second.headers.etag);
    await app.close();
    await fx.cleanup();
  });

  test('a role removed by hand turns the template that uses it invalid in the very next answer', async () => {
    const fx = await fixture();
    const app = await fx.open();
    await fx.write(BETA.replace('role: reviewer', 'role: auditor'), 'templates', 'beta.yaml');
    const valid = async () => (await app.inject({ method: 'GET', url: `${API}/templates/beta` })).json().valid as boolean;
    expect(await valid()).toBe(false);
    await fx.write('You audit.\n', 'roles', 'auditor', 'role.md');
    expect(await valid()).toBe(true);
    await rm(fx.at('roles', 'auditor'), { recursive: true });
    expect(await valid()).toBe(false);
    await app.close();
    await fx.cleanup();
  });
});

describe('files older than the racy window', () => {
  /** A clock past the racy window: every file the test writes is old, and a stat alone must prove it unchanged. */
  const later = () => Date.now() + 10 * RACY_MS;
  /** An mtime in whole seconds: set back to it, the file's mtime is exactly what it was. */
  const HOUR_AGO = Math.floor(Date.now() / 1000) - 3600;

  test('a hand edit of the same size with its mtime set back is listed, and answered, fresh', async () => {
    const fx = await fixture();
    await fx.write(custom('mine', 'purpose aaaa'), 'templates', 'mine.yaml');
    await utimes(fx.at('templates', 'mine.yaml'), HOUR_AGO, HOUR_AGO);
    const app = await buildApp({ libraryOptions: { spawner: testSpawner, root: fx.root, harnessDir: fx.harness, now: later }, web: false });
    const list = async () => (await app.inject({ method: 'GET', url: `${API}/templates` })).json().templates as { name: string; purpose: string }[];
    expect((await list()).find((t) => t.name === 'mine')!.purpose).toBe('purpose aaaa');
    expect((await list()).find((t) => t.name === 'mine')!.purpose).toBe('purpose aaaa');
    await writeFile(fx.at('templates', 'mine.yaml'), custom('mine', 'purpose bbbb'));
    await utimes(fx.at('templates', 'mine.yaml'), HOUR_AGO, HOUR_AGO);
    expect((await list()).find((t) => t.name === 'mine')!.purpose).toBe('purpose bbbb');
    const one = await app.inject({ method: 'GET', url: `${API}/templates/mine` });
    expect(one.json().source).toBe(custom('mine', 'purpose bbbb'));
    await app.close();
    await fx.cleanup();
  });

  test('a hand edit of a saved copy (same size, mtime set back) lists edited_outside', async () => {
    const fx = await fixture();
    const app = await buildApp({ libraryOptions: { spawner: testSpawner, root: fx.root, harnessDir: fx.harness, now: later }, web: false });
    const saved = ALPHA.replace('one worker then a gate', 'edited aaaa');
    expect((await app.inject({ method: 'PUT', url: `${API}/templates/alpha`, payload: { source: saved } })).statusCode).toBe(200);
    const copy = fx.at('templates', 'alpha.yaml');
    await utimes(copy, HOUR_AGO, HOUR_AGO);
    const alpha = async () => ((await app.inject({ method: 'GET', url: `${API}/templates` })).json().templates as { name: string }[]).find((t) => t.name === 'alpha');
    expect(await alpha()).toMatchObject({ state: 'edited', edited_outside: false, purpose: 'edited aaaa' });
    await writeFile(copy, saved.replace('edited aaaa', 'edited bbbb'));
    await utimes(copy, HOUR_AGO, HOUR_AGO);
    expect(await alpha()).toMatchObject({ state: 'edited', edited_outside: true, purpose: 'edited bbbb' });
    await app.close();
    await fx.cleanup();
  });
});

describe('response schemas', () => {
  test('every API route declares a schema for its 2xx answers', async () => {
    const fx = await fixture();
    const app = await fx.open();
    const doc = (await app.inject({ method: 'GET', url: `${API}/openapi.json` })).json() as {
      paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }>; description?: string }> }>>;
    };
    const missing: string[] = [];
    let routes = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        routes++;
        const ok = Object.entries(op.responses ?? {}).filter(([code]) => code.startsWith('2'));
        // a 204 has no body; every other 2xx names its schema
        const declared = ok.length > 0 && ok.every(([code, r]) => code === '204' || Object.values(r.content ?? {}).some((c) => c.schema !== undefined));
        if (!declared) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(routes).toBeGreaterThan(10);
    expect(missing).toEqual([]);
    await app.close();
    await fx.cleanup();
  });
});
