/**
 * Desks on one remote, driven through the API: what test/sync.test.ts and
 * test/sync-shared.test.ts both need.
 */
import { expect } from 'vitest';
import type { App } from '../src/app.js';
import type { Library } from '../src/library/types.js';
import type { SyncStatus } from '../src/schema/sync.js';
import { API, type Fixture, fixture } from './http-fixture.js';

export interface Desk {
  fx: Fixture;
  app: App;
  /** a library the test opened itself (to hear its events): the app does not close it */
  library?: Library;
}

/** the interval is out of the way: every sync in these tests is asked for */
export const HOUR = 3_600_000;

/** A desk on `remote`, added to `opened` so the test's afterEach closes it. */
export async function openDesk(remote: string, opened: Desk[]): Promise<Desk> {
  const fx = await fixture();
  const app = await fx.open({ sync: { remote, intervalMs: HOUR } });
  await app.ready();
  const d = { fx, app };
  opened.push(d);
  return d;
}

export async function sync(d: Desk): Promise<SyncStatus> {
  const r = await d.app.inject({ method: 'POST', url: `${API}/sync` });
  expect(r.statusCode).toBe(200);
  return r.json();
}

export async function get(d: Desk, name: string) {
  const r = await d.app.inject({ method: 'GET', url: `${API}/templates/${name}` });
  return { ...r.json(), etag: r.headers.etag as string };
}

export async function save(d: Desk, name: string, source: string, etag?: string) {
  const r = await d.app.inject({ method: 'PUT', url: `${API}/templates/${name}`, payload: { source }, headers: etag ? { 'if-match': etag } : {} });
  expect(r.statusCode, r.body).toBe(200);
  return { ...r.json(), etag: r.headers.etag as string };
}
