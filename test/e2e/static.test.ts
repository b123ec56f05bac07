/** The page's file serving (src/http/static.ts), through a bare fastify app and inject: no browser needed. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { webPlugin } from '../../src/http/static.js';
import { packageRoot } from '../../src/paths.js';
import { buildWeb } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'desk-static-'));
const built = join(dir, 'built');
mkdirSync(built);
// a built page as scripts/build-web.mjs lays it out: index.html naming hashed files
const MAIN = `export const big = ${JSON.stringify('x'.repeat(20_000))};\n`;
writeFileSync(join(built, 'index.html'), '<!doctype html><script type="module" src="/assets/main-ABCDEFGH.js"></script>\n');
writeFileSync(join(built, 'main-ABCDEFGH.js'), MAIN);
writeFileSync(join(built, 'main-ABCDEFGH.js.map'), '{}');
writeFileSync(join(built, 'style-ABCDEFG2.css'), 'body{}\n');
// a file the build precompressed (scripts/build-web.mjs): its .br and .gz are sent as they are
const CHUNK = `export const chunk = ${JSON.stringify('y'.repeat(5_000))};\n`;
writeFileSync(join(built, 'chunk-ABCDEFG3.js'), CHUNK);
writeFileSync(join(built, 'chunk-ABCDEFG3.js.br'), brotliCompressSync(CHUNK));
writeFileSync(join(built, 'chunk-ABCDEFG3.js.gz'), gzipSync(CHUNK));
writeFileSync(join(built, 'main.ts'), 'export {};\n');
writeFileSync(join(built, '.hidden-ABCDEFGH.js'), 'export {};\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function appWith(webDir: string) {
  const app = Fastify();
  await app.register(webPlugin, { webDir });
  return app;
}

describe('webPlugin', () => {
  it('answers 503 with a clear text when the page is not built', async () => {
    const app = await appWith(join(dir, 'nowhere'));
    for (const url of ['/', '/assets/main-ABCDEFGH.js']) {
      const res = await app.inject({ url });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toContain('npm run build');
    }
  });

  it('serves index.html no-cache with a strict CSP, and hashed files immutable', async () => {
    const app = await appWith(built);
    const page = await app.inject({ url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.body).toContain('src="/assets/main-ABCDEFGH.js"');
    const csp = String(page.headers['content-security-policy']);
    for (const rule of ["default-src 'none'", "script-src 'self'", "worker-src 'self'", "frame-ancestors 'none'"]) expect(csp).toContain(rule);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    // a fresh style nonce per load, in the CSP and in the page's meta, and nothing else inline
    const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]{24})'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(page.body).toContain(`<meta name="csp-nonce" content="${nonce}">`);
    expect(page.body.startsWith('<!doctype html><meta name="csp-nonce"')).toBe(true);
    const again = await app.inject({ url: '/' });
    expect(String(again.headers['content-security-policy'])).not.toContain(`'nonce-${nonce}'`);

    const main = await app.inject({ url: '/assets/main-ABCDEFGH.js' });
    expect(main.statusCode).toBe(200);
    expect(main.headers['content-type']).toMatch(/javascript/);
    expect(main.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(main.body).toBe(MAIN);
    const css = await app.inject({ url: '/assets/style-ABCDEFG2.css' });
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.headers['cache-control']).toContain('immutable');
    expect((await app.inject({ url: '/assets/main-ABCDEFGH.js.map' })).statusCode).toBe(200);
  });

  it('compresses for a browser that asks: brotli or gzip, the same bytes back', async () => {
    const app = await appWith(built);
    const br = await app.inject({ url: '/assets/main-ABCDEFGH.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.rawPayload.length).toBeLessThan(MAIN.length / 10);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(MAIN);
    const gz = await app.inject({ url: '/assets/main-ABCDEFGH.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(MAIN);
    expect(gz.headers['cache-control']).toContain('immutable');
    const plain = await app.inject({ url: '/assets/main-ABCDEFGH.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
  });

  it('sends the build\'s precompressed copies as they are, with the original type and caching', async () => {
    const app = await appWith(built);
    const br = await app.inject({ url: '/assets/chunk-ABCDEFG3.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.rawPayload.equals(readFileSync(join(built, 'chunk-ABCDEFG3.js.br')))).toBe(true);
    const gz = await app.inject({ url: '/assets/chunk-ABCDEFG3.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(CHUNK);
    expect((await app.inject({ url: '/assets/chunk-ABCDEFG3.js' })).body).toBe(CHUNK);
    // never asked for by name
    expect((await app.inject({ url: '/assets/chunk-ABCDEFG3.js.br' })).statusCode).toBe(404);
  });

  it('serves only named hashed files: no sources, no listings, no traversal, no missing files', async () => {
    const app = await appWith(built);
    for (const url of [
      '/assets/..%2Fpackage.json',
      '/assets/main.ts',
      '/assets/main.js',
      '/assets/.hidden-ABCDEFGH.js',
      '/assets/nope-ABCDEFGH.js',
      '/assets/',
      '/assets',
      '/index.html',
      '/main.ts',
      '/style.css',
      '/js/main.js',
    ]) {
      expect((await app.inject({ url })).statusCode, url).toBe(404);
    }
  });

  it('the real build: index.html names files that exist, with the worker and stylesheet, all served', async () => {
    buildWeb();
    const web = join(packageRoot, 'dist', 'web');
    const html = readFileSync(join(web, 'index.html'), 'utf8');
    const urls = [...html.matchAll(/(?:src|href|content)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(urls.some((u) => /\/main-[A-Z2-7]{8}\.js$/.test(u))).toBe(true);
    expect(urls.some((u) => /\/validator-worker-[A-Z2-7]{8}\.js$/.test(u))).toBe(true);
    expect(urls.some((u) => /\/style-[A-Z2-7]{8}\.css$/.test(u))).toBe(true);
    // the chunks the page imports are fetched with it (modulepreload), not after it is parsed
    expect(html).toMatch(/<link rel="modulepreload" href="\/assets\/chunk-[A-Z2-7]{8}\.js">/);
    const app = await appWith(web);
    for (const url of urls) expect((await app.inject({ url })).statusCode, url).toBe(200);
  });
});
