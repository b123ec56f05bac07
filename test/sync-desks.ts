/**
 * Desks on one remote, driven through the API: what test/sync.test.ts,
 * test/sync-rounds.test.ts and test/sync-shared.test.ts need.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import type { App } from '../src/app.js';
import type { Library } from '../src/library/types.js';
import type { SyncStatus } from '../src/schema/sync.js';
import { ALPHA, API, type Fixture, fixture } from './http-fixture.js';

export interface Desk {
  fx: Fixture;
  app: App;
  /** a library the test opened itself (to hear its events): the app does not close it */
  library?: Library;
}

/** the interval is out of the way: every sync in these tests is asked for */
/**
 * A bare team remote made afresh for each test of the file, and the desks a
 * test opens on it, closed and removed after it (call at the top of a file).
 */
export function teamPerTest(prefix: string): { readonly dir: string; readonly bare: string; desks: Desk[] } {
  const team = { dir: '', bare: '', desks: [] as Desk[] };
  beforeEach(async () => {
    team.dir = await mkdtemp(join(tmpdir(), prefix));
    team.bare = join(team.dir, 'team.git');
    gitIn(team.dir, 'init', '--bare', '-q', '-b', 'main', team.bare);
  });
  afterEach(async () => {
    for (const d of team.desks) {
      await d.app.close();
      await d.fx.cleanup();
    }
    team.desks = [];
    await rm(team.dir, { recursive: true, force: true });
  });
  return team;
}

export const HOUR = 3_600_000;

/** alpha with another purpose line */
export const alphaPurpose = (p: string): string => ALPHA.replace('purpose: one worker then a gate', `purpose: ${p}`);

/** Polls a condition every 20 ms; the test's own timeout bounds it. */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

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

/** git in `cwd` as a teammate would run it (author Teammate), output trimmed. */
export const gitIn = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-C', cwd, '-c', 'user.name=Teammate', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).trim();

/** git in a desk's library root. */
export const gitOf = (d: Desk, ...args: string[]): string => gitIn(d.fx.root!, ...args);

/** The desk stopped and started again on `remote`, as a restart of the service. */
export async function restart(d: Desk, remote: string): Promise<void> {
  await d.app.close();
  d.app = await d.fx.open({ sync: { remote, intervalMs: HOUR } });
  await d.app.ready();
}

export function fsckClean(d: Desk): void {
  expect(() => gitOf(d, 'fsck', '--no-dangling', '--no-progress')).not.toThrow();
}

export interface Teammate {
  dir: string;
  write(path: string, text: string | Buffer): void;
  remove(path: string): void;
  push(message: string): void;
}

/** A teammate's plain `git clone` of the team's repository, in a folder of `dir`, pushing by hand. */
export function teammate(dir: string, bare: string): Teammate {
  const tm = join(dir, `teammate-${Math.random().toString(36).slice(2)}`);
  execFileSync('git', ['clone', '-q', bare, tm]);
  return {
    dir: tm,
    write(path, text) {
      mkdirSync(dirname(join(tm, path)), { recursive: true });
      writeFileSync(join(tm, path), text);
    },
    remove(path) {
      rmSync(join(tm, path), { force: true });
    },
    push(message) {
      gitIn(tm, 'pull', '-q', '--no-rebase');
      gitIn(tm, 'add', '-A');
      gitIn(tm, 'commit', '-q', '-m', message);
      gitIn(tm, 'push', '-q', 'origin', 'HEAD:main');
    },
  };
}
