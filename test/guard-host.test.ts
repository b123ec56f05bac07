/**
 * Host must name this service (DNS rebinding): 421 forbidden_host otherwise,
 * before any route runs — the page, the API and 404s alike.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllowedHosts, parseAuthority } from '../src/http/guard-host.js';
import { codeOf, guardApp, PORT } from './guard-fixture.js';

describe('parseAuthority', () => {
  it.each([
    ['localhost:4000', { name: 'localhost', port: 4000 }],
    ['LocalHost', { name: 'localhost' }],
    ['127.0.0.1:80', { name: '127.0.0.1', port: 80 }],
    ['[::1]:4000', { name: '[::1]', port: 4000 }],
    ['[0:0:0:0:0:0:0:1]:4000', { name: '[::1]', port: 4000 }],
    ['desk-1.lan', { name: 'desk-1.lan' }],
  ])('%s parses', (text, want) => {
    expect(parseAuthority(text)).toEqual(want);
  });

  it.each([
    '',
    'localhost.',
    'localhost:',
    'localhost:0',
    'localhost:65536',
    'localhost:+80',
    'evil.com@localhost:4000',
    'localhost:4000, evil.com',
    'localhost:4000/x',
    '[::1',
    '[127.0.0.1]',
    '-evil.com',
    'evil_com',
    'localhost\u00a0',
  ])('%j is refused', (text) => {
    expect(parseAuthority(text)).toBeNull();
  });

  it('a malformed allowed host stops the start', () => {
    expect(() => parseAllowedHosts(['http://desk.lan'])).toThrow();
    expect(parseAllowedHosts(['::1', ' desk.lan:8443 ', ''])).toEqual([
      { name: '[::1]' },
      { name: 'desk.lan', port: 8443 },
    ]);
  });
});

describe('Host guard', () => {
  it.each([
    `127.0.0.1:${PORT}`,
    `localhost:${PORT}`,
    `LOCALHOST:${PORT}`,
    `[::1]:${PORT}`,
    `[0:0:0:0:0:0:0:1]:${PORT}`,
  ])('%s is this service', async (host) => {
    const { app } = await guardApp();
    const res = await app.inject({ url: '/api/desk/health', headers: { host } });
    expect(res.statusCode).toBe(200);
  });

  it.each([
    'evil.example:4000',
    `localhost:${PORT + 1}`,
    'localhost',
    '127.0.0.1',
    `127.0.0.1.nip.io:${PORT}`,
    `localhost.:${PORT}`,
    `127.1:${PORT}`,
    `evil.example@localhost:${PORT}`,
    `localhost:${PORT}, evil.example`,
    '',
  ])('%j is refused with 421 before any route runs', async (host) => {
    const { app, calls } = await guardApp();
    for (const url of ['/api/desk/health', '/', '/no-such-page']) {
      const res = await app.inject({ url, headers: { host } });
      expect(res.statusCode).toBe(421);
      expect(codeOf(res)).toBe('forbidden_host');
    }
    const put = await app.inject({
      method: 'PUT',
      url: '/api/desk/templates/x',
      headers: { host, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(put.statusCode).toBe(421);
    expect(calls()).toBe(0);
  });

  it('on port 80 a Host without a port is this service too', async () => {
    const { app } = await guardApp({ port: 80 });
    for (const host of ['localhost', 'localhost:80', '127.0.0.1', '[::1]']) {
      expect((await app.inject({ url: '/', headers: { host } })).statusCode).toBe(200);
    }
    expect((await app.inject({ url: '/', headers: { host: 'localhost:4000' } })).statusCode).toBe(421);
  });

  it('a configured name without a port matches it bare or with the service port', async () => {
    const { app } = await guardApp({ allowedHosts: ['desk.lan'] });
    const status = async (host: string) => (await app.inject({ url: '/', headers: { host } })).statusCode;
    expect(await status('desk.lan')).toBe(200);
    expect(await status(`desk.lan:${PORT}`)).toBe(200);
    expect(await status('DESK.LAN')).toBe(200);
    expect(await status('desk.lan:5000')).toBe(421);
    expect(await status('other.lan')).toBe(421);
  });

  it('a configured name with a port matches only that port', async () => {
    const { app } = await guardApp({ allowedHosts: ['desk.lan:8443'] });
    const status = async (host: string) => (await app.inject({ url: '/', headers: { host } })).statusCode;
    expect(await status('desk.lan:8443')).toBe(200);
    expect(await status('desk.lan')).toBe(421);
    expect(await status(`desk.lan:${PORT}`)).toBe(421);
  });

  it('a specific listen address is a name of the service; a wildcard is not', async () => {
    const { app } = await guardApp({ host: '192.168.1.5' });
    expect((await app.inject({ url: '/', headers: { host: `192.168.1.5:${PORT}` } })).statusCode).toBe(200);
    const wild = await guardApp({ host: '0.0.0.0' });
    expect((await wild.app.inject({ url: '/', headers: { host: `0.0.0.0:${PORT}` } })).statusCode).toBe(421);
  });

  it('a port function is asked on each request', async () => {
    let port = 5000;
    const { app } = await guardApp({ port: () => port });
    expect((await app.inject({ url: '/', headers: { host: 'localhost:5000' } })).statusCode).toBe(200);
    port = 5001;
    expect((await app.inject({ url: '/', headers: { host: 'localhost:5000' } })).statusCode).toBe(421);
    expect((await app.inject({ url: '/', headers: { host: 'localhost:5001' } })).statusCode).toBe(200);
  });

  it("port 0 before listen reads as 80, inject's default Host", async () => {
    const { app } = await guardApp({ port: 0 });
    expect((await app.inject({ url: '/' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/', headers: { host: 'localhost:4000' } })).statusCode).toBe(421);
  });

  describe('port 0 on a real socket reads the bound port', () => {
    let close = async () => {};
    afterAll(() => close());

    it('accepts the bound port and refuses another', async () => {
      const { app } = await guardApp({ port: 0 });
      await app.listen({ host: '127.0.0.1', port: 0 });
      close = () => app.close();
      const bound = (app.server.address() as AddressInfo).port;
      expect(await get(bound, `127.0.0.1:${bound}`)).toBe(200);
      expect(await get(bound, `localhost:${bound}`)).toBe(200);
      expect(await get(bound, `127.0.0.1:${bound + 1}`)).toBe(421);
      expect(await get(bound, `rebound.example:${bound}`)).toBe(421);
    });
  });
});

function get(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}
