/**
 * A request that arrives on a kept-alive connection while the service is
 * stopping is answered 503 `shutting_down` as problem+json, not with
 * fastify's own bare body, and is not run (src/http/guard-server.ts).
 */
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import type { App } from '../src/app.js';
import { API, type Fixture, fixture } from './http-fixture.js';

let fx: Fixture | undefined;
let app: App | undefined;
let socket: Socket | undefined;
/** lets a held stop go on (also when the test failed before it did) */
let release: () => void = () => undefined;
afterEach(async () => {
  release();
  socket?.destroy();
  await app?.close();
  await fx?.cleanup();
});

/** Sends one request on the socket and resolves with the raw answer once its body (Content-Length) is in. */
function ask(s: Socket, port: number, path: string): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    let got = '';
    const onData = (chunk: Buffer) => {
      got += chunk.toString('latin1');
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = got.slice(0, end);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (got.length - end - 4 < length) return;
      s.off('data', onData);
      resolve({ head, body: got.slice(end + 4, end + 4 + length) });
    };
    s.on('data', onData);
    s.once('error', reject);
    s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

test('a request on a kept-alive connection during the stop gets 503 shutting_down, and the app still closes', async () => {
  fx = await fixture();
  app = await fx.open();
  // holds the stop in its preClose phase, as open streams or a sync round would
  const held = new Promise<void>((r) => {
    release = r;
  });
  let reachedHold!: () => void;
  const holding = new Promise<void>((r) => {
    reachedHold = r;
  });
  app.addHook('preClose', async () => {
    reachedHold();
    await held;
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  socket = connect(port, '127.0.0.1');
  await new Promise((r) => socket!.once('connect', r));

  const before = await ask(socket, port, `${API}/templates/alpha`);
  expect(before.head).toMatch(/^HTTP\/1\.1 200/);

  const closing = app.close();
  await holding;
  const during = await ask(socket, port, `${API}/templates/alpha`);
  expect(during.head).toMatch(/^HTTP\/1\.1 503/);
  expect(during.head).toMatch(/content-type: application\/problem\+json/i);
  expect(during.head).toMatch(/connection: close/i);
  expect(during.head).toMatch(/retry-after: 1/i);
  expect(JSON.parse(during.body)).toMatchObject({ status: 503, code: 'shutting_down' });

  release();
  await closing;
  app = undefined;
});
