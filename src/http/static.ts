/**
 * Serves the settings page (issue 6) at `/`: index.html and style.css from
 * src/web/, the compiled modules from dist/web/ under `/js/`. Paths come from
 * the package root (src/paths.ts), so this works from src/ under vitest and
 * from dist/src/ after the build. Only named files are served, never a
 * directory listing or the TypeScript sources.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { packageRoot } from '../paths.js';

export interface WebOptions {
  /** where index.html and style.css are; default `<package>/src/web` */
  webDir?: string;
  /** where the compiled page modules are; default `<package>/dist/web` */
  jsDir?: string;
}

/**
 * The page loads nothing but its own files and talks only to this service;
 * inline script and style attributes are refused, and no other site may
 * frame it (clickjacking a Reset button).
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // A rebuilt page shows up on the next load; the files are small.
  'cache-control': 'no-cache',
};

const JS_FILE = /^[a-z][a-z0-9-]*\.js(\.map)?$/;

export const webPlugin: FastifyPluginAsync<WebOptions> = async (app, opts) => {
  const webDir = opts.webDir ?? join(packageRoot, 'src', 'web');
  const jsDir = opts.jsDir ?? join(packageRoot, 'dist', 'web');
  // Checked per request, so `npm run build` while the service runs is enough.
  const built = () => existsSync(join(jsDir, 'main.js'));
  const notBuilt = (reply: FastifyReply) =>
    reply
      .code(503)
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(`The settings page is not built: ${jsDir} has no main.js. Run \`npm run build\` (or \`npm run build:web\`) and reload.\n`);

  await app.register(fastifyStatic, { root: webDir, serve: false });

  const page = { schema: { hide: true } };
  app.get('/', page, async (_req, reply) => {
    if (!built()) return notBuilt(reply);
    return reply.headers(PAGE_HEADERS).sendFile('index.html', webDir);
  });
  app.get('/style.css', page, async (_req, reply) => reply.headers(PAGE_HEADERS).sendFile('style.css', webDir));
  app.get<{ Params: { file: string } }>('/js/:file', page, async (req, reply) => {
    if (!JS_FILE.test(req.params.file)) return reply.callNotFound();
    if (!built()) return notBuilt(reply);
    if (!existsSync(join(jsDir, req.params.file))) return reply.callNotFound();
    return reply.headers(PAGE_HEADERS).sendFile(req.params.file, jsDir);
  });
};
