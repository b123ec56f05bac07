/**
 * The connection cap in the real process (dist/src/server.js;
 * docs/operations.md, Connections): under `ulimit -n 256` the server holds
 * 256 − 128 = 128 connections, closes the ones past that at once, and
 * serves again when they go.
 */
import type { Socket } from 'node:net';
import { connect } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { killChild, spawnChild } from './children.js';
import { SERVER_JS } from './proof-helpers.js';

const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
});

test('past limit − min(256, limit/2) connections a new one is closed at once; the rest are served', { timeout: 90_000 }, async () => {
  const child = spawnChild('sh', ['-c', `ulimit -n 256 && exec "${process.execPath}" "${SERVER_JS}"`], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', DESK_LIBRARY_ROOT: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await expect.poll(() => /listening at http:\/\/127\.0\.0\.1:\d+/.test(out) || child.exitCode !== null, { timeout: 60_000, interval: 100 }).toBe(true);
    const port = Number(/listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
    expect(port, out).toBeGreaterThan(0);

    let closed = 0;
    for (let i = 0; i < 130; i++) {
      const s = await new Promise<Socket>((resolve, reject) => {
        const s = connect(port, '127.0.0.1', () => resolve(s));
        s.once('error', reject);
      });
      s.on('error', () => {});
      s.once('close', () => closed++);
      sockets.push(s);
    }
    // the two past the cap of 128 are closed by the server; the 128 before them stay open
    await expect.poll(() => closed, { timeout: 5_000 }).toBe(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(closed).toBe(2);

    for (const s of sockets.splice(0)) s.destroy();
    await expect.poll(async () => (await fetch(`http://127.0.0.1:${port}/api/desk/health`).catch(() => null))?.status, { timeout: 5_000 }).toBe(200);
  } finally {
    killChild(child);
  }
});
