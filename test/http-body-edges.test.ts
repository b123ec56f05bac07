/**
 * Bodies that go wrong on a real socket (docs/operations.md, Logs): a client
 * that drops its body half-way is its own business, never an error-level log
 * line with a stack; a body over the 1 MiB cap is answered 413 after it has
 * been read (up to a bound), so the client sees the answer and not a reset.
 */
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { App } from '../src/app.js';
import { API, type Fixture, fixture, keptLines } from './http-fixture.js';

let fx: Fixture;
let app: App;
let lines: Record<string, unknown>[];
let port = 0;

beforeEach(async () => {
  fx = await fixture();
  const kept = keptLines();
  lines = kept.lines;
  app = await fx.open({ logger: { level: 'debug', stream: kept.stream } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
  lines.length = 0; // the listening line
});
afterEach(async () => {
  await app.close();
  await fx.cleanup();
});

/** Polls `cond` every 20 ms until it holds or `ms` pass; a condition, not a fixed sleep. */
async function until(cond: () => boolean, ms = 10_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}

describe('a client that drops its body half-way', () => {
  test('is logged below error level, with no stack', async () => {
    const body = JSON.stringify({ source: 'x'.repeat(10_000) });
    const seen = new Promise((r) => app.server.once('request', r));
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.write(
      `PUT ${API}/templates/alpha HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, body.length / 2)}`,
    );
    // the server is reading the body when the client goes
    await seen;
    socket.destroy();
    // one line for the request either way: the old code's error line, or the info line
    expect(await until(() => lines.length > 0)).toBe(true);
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(lines).toEqual([expect.objectContaining({ level: 30, method: 'PUT', url: `${API}/templates/alpha` })]);
    expect(JSON.stringify(lines)).not.toContain('"stack"');
    expect(await fx.read('templates', 'alpha.yaml')).toBeNull();
  });
});

/**
 * A client that sends its whole body before it reads (as browsers upload):
 * the socket is not read until the last byte is written. Answers the status
 * line it got, or the socket error that ended it.
 */
function uploadFirst(bytes: number): Promise<{ status: string; error: string | null }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    let got = '';
    let error: string | null = null;
    socket.on('data', (d) => {
      got += d;
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
      socket.resume();
    });
    socket.on('close', () => resolve({ status: got.split('\r\n')[0] ?? '', error }));
    socket.write(
      `PUT ${API}/templates/alpha HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${bytes}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(Buffer.alloc(bytes, 0x20), () => socket.resume());
  });
}

describe('a body over the 1 MiB cap', () => {
  test('a client that uploads 6 MiB before it reads gets the 413, not a reset', async () => {
    // 6 MiB is past what loopback buffers hold (~3 MiB): unread, the server's close resets the upload
    expect(await uploadFirst(6 * 1024 * 1024)).toEqual({ status: 'HTTP/1.1 413 Payload Too Large', error: null });
    expect(await fx.read('templates', 'alpha.yaml')).toBeNull();
  });


  test('fetch posting 2 MiB gets the 413 answer, not a reset connection', async () => {
    const source = 'x'.repeat(2 * 1024 * 1024);
    const res = await fetch(`http://127.0.0.1:${port}${API}/templates/alpha`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ source }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe('payload_too_large');
    expect(await fx.read('templates', 'alpha.yaml')).toBeNull();
  });
});
