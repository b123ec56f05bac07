/**
 * The process shell, run for real from dist/ (built by test/global-setup.ts):
 * listen, refuse a second server on the same root, refuse a non-loopback
 * HOST without a token, and stop cleanly on SIGTERM with the lock released.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { killChild, spawnChild } from './children.js';

const SERVER = join(import.meta.dirname, '..', 'dist', 'src', 'server.js');
let dir: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-server-'));
});
afterEach(async () => {
  for (const c of children.splice(0)) killChild(c);
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function run(env: Record<string, string>): Run {
  const child = spawnChild(process.execPath, [SERVER], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function health(base: string): Promise<{ ok: boolean; library_root: string | null }> {
  return (await fetch(`${base}/api/desk/status`)).json() as Promise<{ ok: boolean; library_root: string | null }>;
}

async function listening(r: Run): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(r.stdout());
    if (m) return m[1]!;
    if (r.child.exitCode !== null) throw new Error(`server exited: ${r.stderr()}`);
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('server did not start');
}

test('serves, holds the root, refuses a second server, and stops cleanly on SIGTERM', async () => {
  const root = join(dir, 'lib');
  const first = run({ DESK_LIBRARY_ROOT: root });
  const base = await listening(first);
  expect(await health(base)).toMatchObject({ ok: true, library_root: root });
  expect(existsSync(join(root, '.desk-library.lock'))).toBe(true);

  const second = run({ DESK_LIBRARY_ROOT: root });
  expect(await second.exited).toBe(1);
  expect(second.stderr()).toContain(`pid ${first.child.pid}`);

  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);
  expect(existsSync(join(root, '.desk-library.lock'))).toBe(false);
});

test('the default root is ./.desk-library, created; an empty DESK_LIBRARY_ROOT means none', async () => {
  const withDefault = run({});
  const base = await listening(withDefault);
  expect((await health(base)).library_root).toBe(join(dir, '.desk-library'));
  withDefault.child.kill('SIGTERM');
  await withDefault.exited;

  const none = run({ DESK_LIBRARY_ROOT: '' });
  const b2 = await listening(none);
  expect((await health(b2)).library_root).toBeNull();
  none.child.kill('SIGTERM');
  await none.exited;
});

test('a non-loopback HOST without DESK_TOKEN exits 1 naming the variable', async () => {
  const r = run({ HOST: '0.0.0.0' });
  expect(await r.exited).toBe(1);
  expect(r.stderr()).toContain('DESK_TOKEN');
  expect(r.stdout()).not.toContain('Server listening');
});
