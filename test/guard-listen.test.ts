/**
 * Who can reach the service: a non-loopback listen address needs a token,
 * and the real process refuses before it creates or binds anything. Also the
 * socket-level answers Node gives before fastify sees a request.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { checkListenAddress, isLoopbackHost, serverOptions } from '../src/http/guard.js';
import { packageRoot } from '../src/paths.js';
import { killChild, spawnChild } from './children.js';
import { guardApp } from './guard-fixture.js';

describe('listen address', () => {
  it.each(['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])(
    '%s is loopback: no token needed',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
      expect(checkListenAddress(host, undefined)).toBeNull();
    },
  );

  it.each(['0.0.0.0', '::', '', '192.168.1.5', '10.0.0.1', '::ffff:10.0.0.1', 'example.com', 'localhost.example', '999.0.0.1', '128.0.0.1'])(
    '%j is reachable from other machines: refused without a token, allowed with one',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
      expect(checkListenAddress(host, undefined)).toMatch(/DESK_TOKEN/);
      expect(checkListenAddress(host, '')).toMatch(/DESK_TOKEN/);
      expect(checkListenAddress(host, '   ')).toMatch(/DESK_TOKEN/);
      expect(checkListenAddress(host, 's3cret-token')).toBeNull();
    },
  );
});

const SERVER = join(packageRoot, 'dist', 'src', 'server.js');

/** The env of a child server: nothing inherited that could set a token. */
function serverEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'info', ...vars };
}

describe('the real server process', () => {
  let child: ChildProcess | undefined;
  let dir = '';
  afterEach(async () => {
    if (child) killChild(child);
    child = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('HOST=0.0.0.0 without DESK_TOKEN exits non-zero, naming DESK_TOKEN, before creating the library root', async () => {
    dir = await mkdtemp(join(tmpdir(), 'desk-listen-'));
    const root = join(dir, 'lib');
    child = spawnChild(process.execPath, [SERVER], {
      env: serverEnv({ HOST: '0.0.0.0', PORT: '0', DESK_LIBRARY_ROOT: root }),
    });
    const { code, stdout, stderr } = await finished(child);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/DESK_TOKEN/);
    expect(stdout).not.toMatch(/listening/i);
    expect(existsSync(root)).toBe(false);
  });

  it('HOST=0.0.0.0 with DESK_TOKEN listens, and every guard holds on the socket', async () => {
    dir = await mkdtemp(join(tmpdir(), 'desk-listen-'));
    const token = 'cmVhbC1wcm9jZXNzLXRva2Vu';
    const c = spawnChild(process.execPath, [SERVER], {
      env: serverEnv({ HOST: '0.0.0.0', PORT: '0', DESK_LIBRARY_ROOT: join(dir, 'lib'), DESK_TOKEN: token }),
    });
    child = c;
    const port = await listeningPort(c);
    const host = `127.0.0.1:${port}`;
    expect(await get(port, '/api/desk/health', { host, authorization: `Bearer ${token}` })).toBe(200);
    expect(await get(port, '/api/desk/health', { host })).toBe(401);
    expect(await get(port, '/api/desk/health', { host: `rebound.example:${port}`, authorization: `Bearer ${token}` })).toBe(421);
    expect(await get(port, '/', { host })).toBe(200);
    c.kill('SIGTERM');
    expect((await finished(c)).code).toBe(0);
  });
});

describe('answers before a request exists', () => {
  let close = async () => {};
  afterAll(() => close());

  it('a request not received within requestTimeout is 408 request_timeout; garbage is 400 bad_request', async () => {
    const { app } = await guardApp(
      { port: 0 },
      { requestTimeout: 300, http: { ...serverOptions.http, requestTimeout: 300, headersTimeout: 300, connectionsCheckingInterval: 50 } },
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    close = () => app.close();
    const port = (app.server.address() as { port: number }).port;
    const head = `PUT /api/desk/templates/x HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;

    // Slow in the headers, and slow in the body after complete headers.
    for (const text of [head, `${head}Content-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a`]) {
      const started = Date.now();
      const slow = await raw(port, text);
      // 300 ms is the setting; Node's own defaults would answer after 60 s (headers) or 300 s (request),
      // so anything under 30 s is this setting, even on a busy machine
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(slow).toMatch(/^HTTP\/1\.1 408 /);
      expect(slow).toMatch(/content-type: application\/problem\+json/i);
      expect(JSON.parse(slow.slice(slow.indexOf('\r\n\r\n') + 4)).code).toBe('request_timeout');
    }

    const garbage = await raw(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4)).code).toBe('bad_request');
  });

  it('half-sent headers are 408 at headersTimeout, long before the whole request\'s time; the service sets 10 s of 30', async () => {
    // the service's own figures, read where the real server takes them
    expect(serverOptions.http.headersTimeout).toBe(10_000);
    expect(serverOptions.http.requestTimeout).toBe(30_000);
    // scaled down (300 ms of 60 s): without headersTimeout the answer would wait the
    // whole request's time and the test's own timeout would fail it, no clock read here
    const { app } = await guardApp(
      { port: 0 },
      { requestTimeout: 60_000, http: { ...serverOptions.http, requestTimeout: 60_000, headersTimeout: 300, connectionsCheckingInterval: 50 } },
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    try {
      const slow = await raw(port, `GET /api/desk/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      expect(slow).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      await app.close();
    }
  }, 20_000);
});

function finished(c: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  c.stdout?.on('data', (d) => {
    stdout += d;
  });
  c.stderr?.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => {
    if (c.exitCode !== null) resolve({ code: c.exitCode, stdout, stderr });
    else c.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The port from fastify's "Server listening at http://…:<port>" log line. */
function listeningPort(c: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const m = /listening at http:\/\/\S+?:(\d+)/.exec(out);
      if (m) {
        c.stdout?.off('data', onData);
        resolve(Number(m[1]));
      }
    };
    c.stdout?.on('data', onData);
    c.on('exit', (code) => reject(new Error(`server exited ${code} before listening: ${out}`)));
  });
}

function get(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Write raw bytes, return everything the server sends before it closes. */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const s = connect(port, '127.0.0.1', () => s.write(text));
    s.on('data', (d) => {
      got += d;
    });
    s.on('close', () => resolve(got));
    s.on('error', reject);
  });
}
