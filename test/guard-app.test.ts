/**
 * The guards in the real app (buildApp with a library in a temp folder):
 * a refused request leaves the library folder exactly as it was.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../src/app.js';
import { packageRoot } from '../src/paths.js';
import { codeOf } from './guard-fixture.js';
import { testSpawner } from './test-spawner.js';

const PORT = 8787;
const HOST = `127.0.0.1:${PORT}`;
const TOKEN = 'dGhlLWRlc2stdG9rZW4tZm9yLXRlc3Rz';

let root: string;
let app: App;
let source: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'desk-guard-'));
  source = await readFile(join(packageRoot, 'harness', 'templates', 'quick-fix.yaml'), 'utf8');
});
afterEach(async () => {
  await app?.close();
  await rm(root, { recursive: true, force: true });
});

/** Every file under the root, so "nothing changed" is checked on disk. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  // the library's files: history commits in the background after start (docs/history.md), so .git is left out
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length))
    .filter((p) => !p.startsWith('/.git/'));
}

const save = (headers: Record<string, string>, body = JSON.stringify({ source })) => ({
  method: 'PUT' as const,
  url: '/api/desk/templates/quick-fix',
  payload: body,
  headers: { host: HOST, 'content-type': 'application/json', ...headers },
});

describe('guards in the real app', () => {
  it('a save from the page goes through; the same save from elsewhere changes nothing', async () => {
    app = await buildApp({ libraryOptions: { spawner: testSpawner, root }, port: PORT });
    const before = await filesUnder(root);

    const refused = [
      [save({ host: `rebound.example:${PORT}` }), 421, 'forbidden_host'],
      [save({ origin: 'http://evil.example' }), 403, 'forbidden_origin'],
      [save({ origin: `http://localhost:${PORT}`, 'sec-fetch-site': 'cross-site' }), 403, 'forbidden_origin'],
      [save({ 'content-type': 'text/plain' }), 415, 'unsupported_media_type'],
      [save({ 'content-type': 'application/x-www-form-urlencoded' }, `source=${encodeURIComponent(source)}`), 415, 'unsupported_media_type'],
      [save({}, JSON.stringify({ source: 'x'.repeat(1_048_576) })), 413, 'payload_too_large'],
      [save({}, `{"__proto__":{"x":1},"source":${JSON.stringify(source)}}`), 400, 'bad_request'],
    ] as const;
    for (const [req, status, code] of refused) {
      const res = await app.inject(req);
      expect(res.statusCode, code).toBe(status);
      expect(codeOf(res)).toBe(code);
    }
    expect(await filesUnder(root)).toEqual(before);

    const ok = await app.inject(save({ origin: `http://localhost:${PORT}`, 'sec-fetch-site': 'same-origin' }));
    expect(ok.statusCode).toBe(200);
    expect(await readFile(join(root, 'templates', 'quick-fix.yaml'), 'utf8')).toBe(source);
  });

  it('with a token, /api needs it and the page does not', async () => {
    app = await buildApp({ libraryOptions: { spawner: testSpawner, root }, port: PORT, token: TOKEN });
    const health = (headers: Record<string, string>) =>
      app.inject({ url: '/api/desk/health', headers: { host: HOST, ...headers } });
    const no = await health({});
    expect(no.statusCode).toBe(401);
    expect(codeOf(no)).toBe('unauthorized');
    expect(String(no.headers['www-authenticate'])).toMatch(/^Bearer/);
    expect((await health({ authorization: 'Bearer nope' })).statusCode).toBe(401);
    expect((await health({ authorization: `Bearer ${TOKEN}` })).statusCode).toBe(200);
    const encoded = await app.inject({ url: '/%61pi/desk/health', headers: { host: HOST } });
    expect(encoded.statusCode).toBe(401);

    const before = await filesUnder(root);
    expect((await app.inject(save({}))).statusCode).toBe(401);
    expect(await filesUnder(root)).toEqual(before);

    const page = await app.inject({ url: '/', headers: { host: HOST } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it('the listen address is one of the names; a wildcard one is not', async () => {
    app = await buildApp({ libraryOptions: { spawner: testSpawner, root }, host: '192.168.1.5', port: PORT, token: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const lan = await app.inject({ url: '/api/desk/health', headers: { host: `192.168.1.5:${PORT}`, ...auth } });
    expect(lan.statusCode).toBe(200);
    await app.close();
    app = await buildApp({ libraryOptions: { spawner: testSpawner, root }, host: '0.0.0.0', port: PORT, token: TOKEN });
    const wild = await app.inject({ url: '/api/desk/health', headers: { host: `0.0.0.0:${PORT}`, ...auth } });
    expect(wild.statusCode).toBe(421);
  });

  it('without a port option the app answers inject on its default Host', async () => {
    app = await buildApp({ libraryOptions: { spawner: testSpawner, root } });
    expect((await app.inject({ url: '/api/desk/health' })).statusCode).toBe(200);
    const rebound = await app.inject({ url: '/api/desk/health', headers: { host: 'rebound.example' } });
    expect(rebound.statusCode).toBe(421);
  });
});
