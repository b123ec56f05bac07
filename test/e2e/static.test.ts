/** The page's file serving (src/http/static.ts), through a bare fastify app and inject: no browser needed. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { webPlugin } from '../../src/http/static.js';

const dir = mkdtempSync(join(tmpdir(), 'desk-static-'));
mkdirSync(join(dir, 'built'));
writeFileSync(join(dir, 'built', 'main.js'), 'export {};\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function appWith(jsDir: string) {
  const app = Fastify();
  await app.register(webPlugin, { jsDir });
  return app;
}

describe('webPlugin', () => {
  it('answers 503 with a clear text when the page is not built', async () => {
    const app = await appWith(join(dir, 'nowhere'));
    for (const url of ['/', '/js/main.js']) {
      const res = await app.inject({ url });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.body).toContain('npm run build');
    }
  });

  it('serves the page, its stylesheet and built modules with a strict CSP', async () => {
    const app = await appWith(join(dir, 'built'));
    const page = await app.inject({ url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('src="/js/main.js"');
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect((await app.inject({ url: '/style.css' })).headers['content-type']).toMatch(/^text\/css/);
    const main = await app.inject({ url: '/js/main.js' });
    expect(main.statusCode).toBe(200);
    expect(main.headers['content-type']).toMatch(/javascript/);
  });

  it('serves only named module files: no sources, no traversal, no missing files', async () => {
    const app = await appWith(join(dir, 'built'));
    for (const url of ['/js/..%2Fpackage.json', '/js/main.ts', '/js/.hidden.js', '/js/nope.js', '/index.ts', '/api.ts']) {
      expect((await app.inject({ url })).statusCode, url).toBe(404);
    }
  });
});
