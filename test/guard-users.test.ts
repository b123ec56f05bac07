/**
 * The guard with users (docs/security.md, Users and roles): a users file
 * makes every /api request name a user, also on loopback; the token is
 * looked up by its digest, never compared as itself; failed
 * authentication is limited per address, without locking out a token that
 * has worked; the auth proxy's header counts
 * only from a trusted address.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAuthRate, MAX_KNOWN_TOKENS } from '../src/http/auth-rate.js';
import { UserDirectory } from '../src/http/users-directory.js';
import { tokenDigest } from '../src/http/users.js';
import { codeOf, guardApp, SAVE, send } from './guard-fixture.js';
import { keptLines } from './http-fixture.js';
import { bearer, TOKENS, writeUsers } from './users-fixture.js';

let dir: string;
let users: UserDirectory;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-guard-users-'));
  users = UserDirectory.open({ file: await writeUsers(dir) });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a users file', () => {
  it('asks for a token also on loopback: none or an unknown one is 401', async () => {
    const { app, calls } = await guardApp({ users });
    for (const headers of [{}, { authorization: 'Bearer nobody-has-this' }, { authorization: `Basic ${TOKENS.ann}` }] as Record<string, string>[]) {
      const res = await send(app, { url: '/api/desk/health', headers, remoteAddress: '127.0.0.1' });
      expect(res.statusCode).toBe(401);
      expect(codeOf(res)).toBe('unauthorized');
    }
    expect(calls()).toBe(0);
    expect((await send(app, { url: '/api/desk/health', headers: bearer('vera') })).statusCode).toBe(200);
  });

  it('a known user without the right is 403 forbidden, naming the role, and the route never runs', async () => {
    const { app, calls } = await guardApp({ users });
    for (const who of ['vera', 'carl'] as const) {
      const res = await send(app, { method: 'PUT', url: '/api/desk/templates/x', ...SAVE, headers: { ...SAVE.headers, ...bearer(who) } });
      expect(res.statusCode).toBe(403);
      expect(codeOf(res)).toBe('forbidden');
    }
    expect(calls()).toBe(0);
    const ok = await send(app, { method: 'PUT', url: '/api/desk/templates/x', ...SAVE, headers: { ...SAVE.headers, ...bearer('ann') } });
    expect(ok.statusCode).toBe(200);
    expect(calls()).toBe(1);
  });

  it('the page at / still needs nothing', async () => {
    const { app } = await guardApp({ users });
    expect((await send(app, { url: '/' })).statusCode).toBe(200);
  });
});

describe('the token is looked up by its digest', () => {
  it('no comparison ever sees the token itself: one map lookup of its sha256, whatever it shares with a real one', () => {
    const real = TOKENS.ann;
    const tries = [real, `${real.slice(0, -1)}x`, `x${real.slice(1)}`, real.slice(0, 5), 'z'.repeat(200)];
    const spy = vi.spyOn(Map.prototype, 'get');
    try {
      for (const t of tries) {
        spy.mockClear();
        users.identify(t);
        const keys = spy.mock.calls.map((c) => c[0]);
        // exactly one lookup, keyed by the full digest: no loop over users, no early exit on a differing byte
        expect(keys).toEqual([tokenDigest(t)]);
        expect(keys.some((k) => typeof k === 'string' && k.includes(t.slice(0, 5)))).toBe(false);
      }
    } finally {
      spy.mockRestore();
    }
    expect(users.identify(real)?.name).toBe('ann');
    expect(users.identify(`${real.slice(0, -1)}x`)).toBeUndefined();
  });
});

describe('failed authentication is rate-limited per address', () => {
  it('after max failures: 429 with Retry-After for any token not yet seen to work, until the window ends; another address is untouched', async () => {
    let now = 1_000_000;
    const { app } = await guardApp({ users, authRate: { max: 3, windowMs: 60_000, now: () => now } });
    const from = (remoteAddress: string, headers: Record<string, string> = {}) => send(app, { url: '/api/desk/health', headers, remoteAddress });
    // no credential at all guesses nothing: never counted
    for (let i = 0; i < 10; i++) expect((await from('10.0.0.9')).statusCode).toBe(401);
    for (let i = 0; i < 3; i++) expect((await from('10.0.0.9', { authorization: 'Bearer guess' })).statusCode).toBe(401);
    // vera's token never worked in this process: blocked like a guess
    const blocked = await from('10.0.0.9', bearer('vera'));
    expect(blocked.statusCode).toBe(429);
    expect(codeOf(blocked)).toBe('too_many_requests');
    expect(Number(blocked.headers['retry-after'])).toBe(60);
    now += 30_000;
    expect(Number((await from('10.0.0.9')).headers['retry-after'])).toBe(30);
    expect((await from('10.0.0.8', bearer('vera'))).statusCode).toBe(200);
    now += 30_000;
    expect((await from('10.0.0.9', bearer('vera'))).statusCode).toBe(200);
  });

  it('21 wrong tokens lock out guessers, not the operator: a token that worked before passes, a right one never seen is 429', async () => {
    const { app, calls } = await guardApp({ users });
    const from = (headers: Record<string, string>) => send(app, { url: '/api/desk/health', headers, remoteAddress: '127.0.0.1' });
    expect((await from(bearer('ann'))).statusCode).toBe(200);
    const guesses: number[] = [];
    for (let i = 0; i < 21; i++) guesses.push((await from({ authorization: `Bearer guess-${i}` })).statusCode);
    expect(guesses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(guesses[20]).toBe(429);
    expect((await from(bearer('ann'))).statusCode).toBe(200);
    // bob's token is right, but has not authenticated to this process: from here it reads as any guess
    const bob = await from(bearer('bob'));
    expect(bob.statusCode).toBe(429);
    expect(codeOf(bob)).toBe('too_many_requests');
    expect((await from({})).statusCode).toBe(429);
    // the blocked requests ran nothing: the two reads by ann did
    expect(calls()).toBe(2);
    // a save by ann still goes through the blocked address
    expect((await send(app, { method: 'PUT', url: '/api/desk/templates/x', ...SAVE, headers: { ...SAVE.headers, ...bearer('ann') }, remoteAddress: '127.0.0.1' })).statusCode).toBe(200);
  });

  it('a token that worked passes a blocked address for 24 hours after its last success, then is blocked like any other', async () => {
    let now = 5_000_000;
    const { app } = await guardApp({ users, authRate: { max: 1, windowMs: 100 * 3_600_000, now: () => now } });
    const from = (remoteAddress: string, headers: Record<string, string>) => send(app, { url: '/api/desk/health', headers, remoteAddress });
    expect((await from('10.0.0.1', bearer('vera'))).statusCode).toBe(200);
    expect((await from('10.0.0.2', { authorization: 'Bearer guess' })).statusCode).toBe(401);
    now += 23 * 3_600_000;
    // known from another address, still within the day: passes, and the day starts again
    expect((await from('10.0.0.2', bearer('vera'))).statusCode).toBe(200);
    now += 23 * 3_600_000;
    expect((await from('10.0.0.2', bearer('vera'))).statusCode).toBe(200);
    now += 24 * 3_600_000 + 1;
    expect((await from('10.0.0.2', bearer('vera'))).statusCode).toBe(429);
  });

  it('remembers at most MAX_KNOWN_TOKENS digests, dropping the least recently used', () => {
    let now = 0;
    const rate = createAuthRate({ now: () => now });
    const digest = (i: number) => tokenDigest(`t-${i}`);
    for (let i = 0; i <= MAX_KNOWN_TOKENS; i++) {
      rate.succeeded(digest(i));
      if (i === 10) rate.succeeded(digest(0)); // used again: no longer the oldest
      now++;
    }
    expect(rate.known(digest(0))).toBe(true);
    expect(rate.known(digest(1))).toBe(false);
    expect(rate.known(digest(2))).toBe(true);
    expect(rate.known(digest(MAX_KNOWN_TOKENS))).toBe(true);
  });
});

describe('the auth proxy', () => {
  const proxy = { header: 'X-Forwarded-Email', trusted: ['10.1.0.0/16', '::1'], role: 'viewer' as const };

  it('is honoured from a trusted address: a listed user gets their role, another the proxy role', async () => {
    const { app, calls } = await guardApp({ users, authProxy: proxy });
    const put = (email: string, remoteAddress: string) =>
      send(app, { method: 'PUT', url: '/api/desk/templates/x', ...SAVE, headers: { ...SAVE.headers, 'x-forwarded-email': email }, remoteAddress });
    expect((await put('ann@example.org', '10.1.2.3')).statusCode).toBe(200);
    expect((await put('ann', '10.1.2.3')).statusCode).toBe(200);
    const stranger = await put('zed@example.org', '10.1.2.3');
    expect(stranger.statusCode).toBe(403);
    expect(codeOf(stranger)).toBe('forbidden');
    expect((await send(app, { url: '/api/desk/health', headers: { 'x-forwarded-email': 'zed@example.org' }, remoteAddress: '10.1.2.3' })).statusCode).toBe(200);
    expect(calls()).toBe(3); // two saves and the read; the stranger's save never ran
  });

  it('is ignored from anyone else (logged once): 401, as with no header', async () => {
    const { lines, stream } = keptLines();
    const { app, calls } = await guardApp({ users, authProxy: proxy }, { logger: { level: 'warn', stream } });
    for (const remoteAddress of ['10.2.0.1', '127.0.0.1', '10.2.0.1']) {
      const res = await send(app, {
        method: 'PUT',
        url: '/api/desk/templates/x',
        ...SAVE,
        headers: { ...SAVE.headers, 'x-forwarded-email': 'ann@example.org' },
        remoteAddress,
      });
      expect(res.statusCode).toBe(401);
    }
    expect(calls()).toBe(0);
    expect(lines.filter((l) => l.header === 'x-forwarded-email')).toHaveLength(1);
  });

  it('guesses sent through it block its address for tokens, not for the people it vouches for', async () => {
    const { app } = await guardApp({ users, authProxy: proxy });
    const via = (headers: Record<string, string>) => send(app, { url: '/api/desk/health', headers, remoteAddress: '10.1.2.3' });
    for (let i = 0; i < 20; i++) expect((await via({ authorization: `Bearer guess-${i}` })).statusCode).toBe(401);
    expect((await via({ authorization: 'Bearer guess' })).statusCode).toBe(429);
    expect((await via({ 'x-forwarded-email': 'ann@example.org' })).statusCode).toBe(200);
    expect((await via(bearer('vera'))).statusCode).toBe(429);
  });

  it('a bearer token still works beside it, and a wrong one is not rescued by the header', async () => {
    const { app } = await guardApp({ users, authProxy: proxy });
    expect((await send(app, { url: '/api/desk/health', headers: bearer('vera'), remoteAddress: '10.9.9.9' })).statusCode).toBe(200);
    const wrong = await send(app, { url: '/api/desk/health', headers: { authorization: 'Bearer wrong', 'x-forwarded-email': 'ann@example.org' }, remoteAddress: '10.1.2.3' });
    expect(wrong.statusCode).toBe(401);
  });
});
