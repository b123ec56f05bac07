/**
 * Serves the settings page (docs/settings-page.md) at `/`: the bundle
 * `npm run build:web` writes to dist/web/ (scripts/build-web.mjs). `/` is
 * dist/web/index.html, sent `no-cache` so a rebuilt page shows on the next
 * load; everything it loads is under `/assets/` with a content hash in the
 * file name, so it is cached for a year and never revalidated. The page
 * needs nothing from src/web at run time. Only named files are served, never
 * a directory listing or the TypeScript sources. Answers are gzip- or
 * brotli-compressed when the browser asks: the build's precompressed copies,
 * else on the fly (only here: the API's event stream must never be).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyCompress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { packageRoot } from '../paths.js';

export interface WebOptions {
  /** where the built page is (index.html and the hashed assets); default `<package>/dist/web` */
  webDir?: string;
}

/**
 * The page loads nothing but its own files and talks only to this service;
 * inline script and style attributes are refused, and no other site may
 * frame it (clickjacking a Reset button). The validator runs in a Worker
 * loaded from this origin.
 */
const csp = (style: string) =>
  `default-src 'none'; script-src 'self'; worker-src 'self'; style-src ${style}; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
const PAGE_HEADERS = {
  'content-security-policy': csp("'self'"),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** index.html: revalidated on every load, it names the current hashes */
const NO_CACHE = 'no-cache';
/** a hashed file never changes under its name */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** what scripts/build-web.mjs writes: `<name>-<8 base32>.js|css`, its source map, its licence notes */
const ASSET = /^[a-z][a-z0-9-]*-[A-Z2-7]{8}\.(?:js|css)(?:\.map|\.LEGAL\.txt)?$/;

export const webPlugin: FastifyPluginAsync<WebOptions> = async (app, opts) => {
  const webDir = opts.webDir ?? join(packageRoot, 'dist', 'web');
  // Checked per request, so `npm run build` while the service runs is enough.
  const built = () => existsSync(join(webDir, 'index.html'));
  const notBuilt = (reply: FastifyReply) =>
    reply
      .code(503)
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(`The settings page is not built: ${webDir} has no index.html. Run \`npm run build\` (or \`npm run build:web\`) and reload.\n`);

  // before @fastify/static (its README): the files it streams are compressed on the way out.
  // Small answers (the 503, a 404) are not worth it.
  await app.register(fastifyCompress, { global: true, threshold: 1024, encodings: ['br', 'gzip'] });
  // preCompressed: the build's `<file>.br` / `<file>.gz` when the browser takes them, else the
  // file as is (and @fastify/compress then compresses it on the way out)
  await app.register(fastifyStatic, { root: webDir, serve: false, cacheControl: false, preCompressed: true });

  const page = { schema: { hide: true } };
  app.get('/', page, async (_req, reply) => {
    if (!built()) return notBuilt(reply);
    // CodeMirror views outside a shadow root (the merge views) mount their styles
    // in a <style> element, which `style-src 'self'` refuses. A fresh nonce per
    // load, handed to the page in a <meta>, lets exactly those elements in;
    // inline style attributes stay refused.
    const nonce = randomBytes(16).toString('base64');
    // a build removing the page between the check and the read answers like no build
    const file = await readFile(join(webDir, 'index.html'), 'utf8').catch(() => null);
    if (file === null) return notBuilt(reply);
    const html = withNonce(file, nonce);
    return reply
      .headers(PAGE_HEADERS)
      .header('content-security-policy', csp(`'self' 'nonce-${nonce}'`))
      .header('cache-control', NO_CACHE)
      .type('text/html; charset=utf-8')
      .send(html);
  });
  app.get<{ Params: { file: string } }>('/assets/:file', page, async (req, reply) => {
    if (!ASSET.test(req.params.file)) return reply.callNotFound();
    if (!built()) return notBuilt(reply);
    if (!existsSync(join(webDir, req.params.file))) return reply.callNotFound();
    return reply.headers(PAGE_HEADERS).header('cache-control', IMMUTABLE).sendFile(req.params.file, webDir);
  });
};

/** index.html with `<meta name="csp-nonce">` first in its head (after the doctype when it has no head). */
export function withNonce(html: string, nonce: string): string {
  const meta = `<meta name="csp-nonce" content="${nonce}">`;
  const head = /<head[^>]*>/i.exec(html);
  if (head) return html.slice(0, head.index + head[0].length) + meta + html.slice(head.index + head[0].length);
  const doctype = /^<!doctype[^>]*>/i.exec(html);
  const at = doctype ? doctype[0].length : 0;
  return html.slice(0, at) + meta + html.slice(at);
}
