/**
 * With DESK_TOKEN set, every /api request needs `Authorization: Bearer
 * <token>` (401 unauthorized with WWW-Authenticate otherwise); the page at
 * `/` does not.
 */
import { describe, expect, it } from 'vitest';
import { codeOf, guardApp, SAVE, send } from './guard-fixture.js';

const TOKEN = 'c2VjcmV0LXRva2VuLWZvci10ZXN0cw';

describe('bearer token', () => {
  it('the right token opens /api; the scheme is case-insensitive', async () => {
    const { app } = await guardApp({ token: TOKEN });
    for (const auth of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER  ${TOKEN}`]) {
      const res = await send(app, { url: '/api/desk/health', headers: { authorization: auth } });
      expect(res.statusCode).toBe(200);
    }
  });

  it.each([
    ['no header', undefined],
    ['a wrong token', 'Bearer wrong'],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, -1)}`],
    ['the token and more', `Bearer ${TOKEN}x`],
    ['an empty token', 'Bearer '],
    ['another scheme', `Basic ${TOKEN}`],
    ['the bare token', TOKEN],
    ['two tokens', `Bearer ${TOKEN} ${TOKEN}`],
  ])('%s is 401 with WWW-Authenticate: Bearer', async (_what, auth) => {
    const { app, calls } = await guardApp({ token: TOKEN });
    const res = await send(app, { url: '/api/desk/health', headers: auth === undefined ? {} : { authorization: auth } });
    expect(res.statusCode).toBe(401);
    expect(codeOf(res)).toBe('unauthorized');
    expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer\b/);
    expect(calls()).toBe(0);
  });

  it('a save without the token changes nothing', async () => {
    const { app, calls } = await guardApp({ token: TOKEN });
    const res = await send(app, { method: 'PUT', url: '/api/desk/templates/x', ...SAVE });
    expect(res.statusCode).toBe(401);
    expect(calls()).toBe(0);
    const ok = await send(app, {
      method: 'PUT',
      url: '/api/desk/templates/x',
      ...SAVE,
      headers: { ...SAVE.headers, authorization: `Bearer ${TOKEN}` },
    });
    expect(ok.statusCode).toBe(200);
    expect(calls()).toBe(1);
  });

  it('the page at / needs no token', async () => {
    const { app } = await guardApp({ token: TOKEN });
    expect((await send(app, { url: '/' })).statusCode).toBe(200);
  });

  it.each([
    '/%61pi/desk/health', // routes to /api/desk/health
    '/api/desk/no-such-route', // a 404 under /api does not reveal the route table
    '/API/desk/health',
    '//api/desk/health',
    '/api',
  ])('%s is 401 without the token', async (url) => {
    const { app, calls } = await guardApp({ token: TOKEN });
    const res = await send(app, { url });
    expect(res.statusCode).toBe(401);
    expect(codeOf(res)).toBe('unauthorized');
    expect(calls()).toBe(0);
  });

  it('an undecodable path is 400 bad_request before any route', async () => {
    const { app, calls } = await guardApp({ token: TOKEN });
    const res = await send(app, { url: '/api%' });
    expect(res.statusCode).toBe(400);
    expect(codeOf(res)).toBe('bad_request');
    expect(calls()).toBe(0);
  });

  it('an encoded path that routes to /api is served with the token', async () => {
    const { app } = await guardApp({ token: TOKEN });
    const res = await send(app, { url: '/%61pi/desk/health', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
  });

  it('surrounding whitespace in the configured token is ignored', async () => {
    const { app } = await guardApp({ token: ` ${TOKEN}\n` });
    const res = await send(app, { url: '/api/desk/health', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
  });

  it.each([undefined, null, '', '  '])('with token %j nothing is asked', async (token) => {
    const { app } = await guardApp({ token });
    expect((await send(app, { url: '/api/desk/health' })).statusCode).toBe(200);
  });

  it('the Host check comes first: a rebinding page learns nothing about the token', async () => {
    const { app } = await guardApp({ token: TOKEN });
    const res = await app.inject({ url: '/api/desk/health', headers: { host: 'rebound.example:4000' } });
    expect(res.statusCode).toBe(421);
    expect(res.headers['www-authenticate']).toBeUndefined();
  });
});
