/**
 * Sync with a remote (docs/history.md, Sync): two apps on two roots sharing
 * one bare repository on disk, synced by hand (POST /sync) so each step is in
 * the test's order; a remote that is missing, hangs or fails; no git; no
 * remote; the settings. The other two-desk rounds (merges, conflicts, keep,
 * removals, resets, roles, restarts, events, long rounds, proposals) are in
 * test/sync-rounds.test.ts, and test/sync-process.test.ts runs the same with
 * real servers on their interval; both in `npm run test:proof`.
 */
import { execFileSync } from 'node:child_process';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { API, fixture } from './http-fixture.js';
import { alphaPurpose, type Desk, get, HOUR, openDesk, save, sync, until } from './sync-desks.js';
import { testSpawner } from './test-spawner.js';

let bare: string;
let desks: Desk[] = [];

const desk = (remote = bare): Promise<Desk> => openDesk(remote, desks);

beforeEach(async () => {
  bare = await mkdtemp(join(tmpdir(), 'desk-remote-'));
  execFileSync('git', ['init', '--bare', '-q', '-b', 'main', bare]);
});

afterEach(async () => {
  for (const d of desks) {
    await d.app.close();
    await d.library?.close();
    await d.fx.cleanup();
  }
  desks = [];
  await rm(bare, { recursive: true, force: true });
});

describe('sync with a remote', () => {
  it('a save on A appears on B after a sync, and both stand level', async () => {
    const [a, b] = [await desk(), await desk()];
    await save(a, 'alpha', alphaPurpose('changed on A'));
    expect((await sync(a)).ahead).toBe(0);
    const s = await sync(b);
    expect(s).toMatchObject({ ahead: 0, behind: 0, last_error: null, diverged: [] });
    const got = await get(b, 'alpha');
    expect(got.source).toBe(alphaPurpose('changed on A'));
    // the marker came along: the copy reads as the service wrote it
    expect(got).toMatchObject({ state: 'edited', edited_outside: false });
    // B's merge reached the remote too; A takes it without a conflict
    expect(await sync(a)).toMatchObject({ ahead: 0, behind: 0, diverged: [] });
  });

  it('a remote that cannot be reached never blocks a save; the next sync catches up', async () => {
    const missing = join(bare, 'not-yet.git');
    const a = await desk(missing);
    await save(a, 'alpha', alphaPurpose('offline'));
    const s = await sync(a);
    expect(s.last_error).not.toBeNull();
    expect(s.last_sync).toBeNull();
    execFileSync('git', ['init', '--bare', '-q', '-b', 'main', missing]);
    const t = await sync(a);
    expect(t).toMatchObject({ last_error: null, ahead: 0 });
    expect(execFileSync('git', ['--git-dir', missing, 'show', 'main:templates/alpha.yaml'], { encoding: 'utf8' })).toBe(alphaPurpose('offline'));
  });

  it('a remote that hangs never holds a save', async () => {
    // accepts connections and never answers: a fetch waits on it until cut
    const sockets = new Set<Socket>();
    const hang = createServer((s) => sockets.add(s));
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    try {
      const a = await desk(`https://127.0.0.1:${(hang.address() as AddressInfo).port}/team.git`);
      let synced = false;
      const round = a.app.inject({ method: 'POST', url: `${API}/sync` }).then(() => (synced = true));
      await until(() => sockets.size > 0);
      await save(a, 'alpha', alphaPurpose('while the remote hangs'));
      expect((await a.app.inject({ method: 'GET', url: `${API}/sync` })).statusCode).toBe(200);
      expect(synced).toBe(false);
      await a.app.close();
      await round;
      desks.pop();
      await a.fx.cleanup();
    } finally {
      for (const s of sockets) s.destroy();
      hang.close();
    }
  });

  it('a failing URL remote is reported without its credentials', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const a = await desk(`https://desk:s3cret@127.0.0.1:${port}/team.git`);
    const s = await sync(a);
    expect(s.last_error).not.toBeNull();
    expect(JSON.stringify(s)).not.toContain('s3cret');
  });

  it('without git the status says history is off, and saves go on', async () => {
    const fx = await fixture();
    const app = await buildApp({ libraryOptions: { spawner: testSpawner, root: fx.root, harnessDir: fx.harness, history: { git: join(fx.dir, 'no-git-here') } }, web: false, sync: { remote: bare, intervalMs: HOUR } });
    await app.ready();
    desks.push({ fx, app });
    await save({ fx, app }, 'alpha', alphaPurpose('no git'));
    const s = await sync({ fx, app });
    expect(s.last_error).not.toBeNull();
    expect(s).toMatchObject({ ahead: 0, behind: 0, diverged: [] });
  });

  it('without a remote the sync routes answer no_remote', async () => {
    const fx = await fixture();
    const app = await fx.open();
    desks.push({ fx, app });
    // the status says there is none (the page reads it on every load); a sync is refused
    const r = await app.inject({ method: 'GET', url: `${API}/sync` });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ remote: null, ahead: 0, behind: 0, last_sync: null, last_error: null, diverged: [], diverged_roles: [], diverged_detail: [], ignored: [] });
    const post = await app.inject({ method: 'POST', url: `${API}/sync`, payload: {} });
    expect(post.statusCode).toBe(409);
    expect(post.json().code).toBe('no_remote');
  });
});
describe('DESK_LIBRARY_REMOTE and DESK_SYNC_INTERVAL', () => {
  it('default to no remote and 60 s; a path is taken from the working directory, a URL as it is', () => {
    expect(loadConfig({}, '/w')).toMatchObject({ libraryRemote: null, syncInterval: 60 });
    expect(loadConfig({ DESK_LIBRARY_REMOTE: 'team.git', DESK_SYNC_INTERVAL: '5' }, '/w')).toMatchObject({ libraryRemote: '/w/team.git', syncInterval: 5 });
    expect(loadConfig({ DESK_LIBRARY_REMOTE: 'https://git.example/lib.git' }, '/w').libraryRemote).toBe('https://git.example/lib.git');
    expect(loadConfig({ DESK_LIBRARY_REMOTE: 'git@host:lib.git' }, '/w').libraryRemote).toBe('git@host:lib.git');
  });

  it('refuses a remote without a library root', () => {
    expect(() => loadConfig({ DESK_LIBRARY_REMOTE: '/srv/team.git', DESK_LIBRARY_ROOT: '' }, '/w')).toThrow(ConfigError);
  });

  it.each(['0', '-1', '1.5', 'soon', '86401'])('refuses DESK_SYNC_INTERVAL=%s', (v) => {
    expect(() => loadConfig({ DESK_SYNC_INTERVAL: v }, '/w')).toThrow(ConfigError);
  });
});
