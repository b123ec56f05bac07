/**
 * Stopping the real process (dist/src/server.js; docs/operations.md,
 * "Stopping"): SIGTERM with saves in flight over keep-alive sockets, as every
 * browser sends them, and SIGTERM before the server is ready. Each must end
 * in exit 0 with the root lock gone and every answered save on disk. How
 * long a stop takes is not asserted: a hang shows as the old exit 1 after the
 * grace, or as the test's timeout.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { spawnChild } from './children.js';
import { tpl } from './library-helpers.js';
import { fullProof, SERVER_JS, startServer } from './proof-helpers.js';

/**
 * Each case starts a real server (seconds of CPU on a busy 2-core machine):
 * `npm test` runs one round of the keep-alive case, `npm run test:proof`
 * (PROOF_ROUNDS=50) the 25 rounds and every other case. STOP_ROUNDS
 * sets the rounds in either.
 */
const FULL = fullProof();
const ROUNDS = Number(process.env.STOP_ROUNDS ?? (FULL ? 25 : 1));
const SAVES = 8;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-stop-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  connection: string | undefined;
}

/** One request on the agent's sockets; resolves with the answer, or null when the socket was closed before one came. */
function send(agent: Agent, base: string, method: string, path: string, body?: unknown): Promise<Answer | null> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const req = request(`${base}/api/desk${path}`, { agent, method, headers: data ? { 'content-type': 'application/json' } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
      res.on('error', () => resolve(null));
    });
    req.on('error', () => resolve(null));
    req.end(data);
  });
}

test(`SIGTERM with ${SAVES} saves in flight on keep-alive sockets: exit 0, lock gone, every answered save on disk (${ROUNDS} rounds)`, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const root = join(dir, `lib-${round}`);
    const s = await startServer(root, dir);
    const agent = new Agent({ keepAlive: true, maxSockets: SAVES });
    try {
      // open the sockets first, so the saves ride on kept-alive connections
      const warm = await Promise.all(Array.from({ length: SAVES }, () => send(agent, s.base, 'GET', '/templates')));
      expect(warm.map((a) => a?.status)).toEqual(Array(SAVES).fill(200));
      const names = Array.from({ length: SAVES }, (_, i) => `stop-${round}-${i}`);
      const saves = names.map((n) => send(agent, s.base, 'PUT', `/templates/${n}`, { source: tpl(n) }));
      // mid-flight: the signal goes when the first save is answered, the others still on their way
      void Promise.race(saves).then(() => s.child.kill('SIGTERM'));
      const answers = await Promise.all(saves);
      expect(await s.exited).toBe(0);
      expect(existsSync(join(root, '.desk-library.lock'))).toBe(false);
      for (const [i, a] of answers.entries()) {
        if (a?.status !== 200) continue;
        expect(await readFile(join(root, 'templates', `${names[i]}.yaml`), 'utf8')).toBe(tpl(names[i]!));
      }
      expect(s.stdout()).toContain('"msg":"stopping"');
    } finally {
      agent.destroy();
      s.child.kill('SIGKILL');
    }
  }
  // a start can take seconds on a busy 2-core machine
}, 30_000 + ROUNDS * 20_000);

test.runIf(FULL)('SIGTERM while a slow client holds a request open (headers sent, body never): exit 0, lock gone', async () => {
  const root = join(dir, 'lib');
  const s = await startServer(root, dir);
  const socket = connect(Number(new URL(s.base).port), '127.0.0.1');
  try {
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.on('error', () => {});
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    // `100 Continue` is node's sign that it has read the headers: the request is in flight from then on
    const continued = new Promise<void>((r) => socket.on('data', (d) => String(d).includes('100 Continue') && r()));
    socket.write(`PUT /api/desk/templates/slow HTTP/1.1\r\nhost: ${new URL(s.base).host}\r\ncontent-type: application/json\r\ncontent-length: 100\r\nexpect: 100-continue\r\n\r\n`);
    await continued;
    socket.write('{');
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    await closed;
    expect(existsSync(join(root, '.desk-library.lock'))).toBe(false);
    expect(existsSync(join(root, 'templates', 'slow.yaml'))).toBe(false);
  } finally {
    socket.destroy();
    s.child.kill('SIGKILL');
  }
});

test.runIf(FULL)('SIGTERM while the library opens (recovery running): exit 0, "stopping" logged, lock gone', async () => {
  const root = join(dir, 'lib');
  // temp files a crash left behind; recovery removes each durably, which keeps the server from listening for a while
  await mkdir(join(root, 'templates'), { recursive: true });
  await Promise.all(Array.from({ length: 3000 }, (_, i) => writeFile(join(root, 'templates', `.tmp-x.yaml-${i}`), 'x')));
  const child = spawnChild(process.execPath, [SERVER_JS], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', DESK_LIBRARY_ROOT: root },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    // the lock is taken just before recovery starts
    while (!existsSync(join(root, '.desk-library.lock')) && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('"msg":"stopping"');
    expect(out).not.toContain('Server listening');
    expect(existsSync(join(root, '.desk-library.lock'))).toBe(false);
  } finally {
    child.kill('SIGKILL');
  }
});

test.runIf(FULL)('SIGTERM while waiting on a lock another host holds: exit 0, "stopping" logged, that lock untouched', async () => {
  const root = join(dir, 'lib');
  const lock = join(root, '.desk-library.lock');
  await mkdir(lock, { recursive: true });
  const holderFile = join(lock, `holder-${'a'.repeat(32)}.json`);
  await writeFile(holderFile, JSON.stringify({ pid: 1, host: 'elsewhere.example', started: '2026-01-01T00:00:00.000Z' }));
  const child = spawnChild(process.execPath, [SERVER_JS], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', DESK_LIBRARY_ROOT: root },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    // the server says it opens the library, then watches the fresh lock for up to its stale bound
    while (!out.includes('opening the library') && child.exitCode === null) await new Promise((r) => setTimeout(r, 10));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('"msg":"stopping"');
    expect(out).not.toContain('Server listening');
    expect(existsSync(holderFile)).toBe(true);
  } finally {
    child.kill('SIGKILL');
  }
});
