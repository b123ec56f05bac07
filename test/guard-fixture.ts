/**
 * A tiny app with the guard plugin, the real error handler and stub routes
 * that count their calls, so a test can show a refused request changed
 * nothing. The guard tests use port 4000 and set Host on every request.
 */
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { registerErrorHandling } from '../src/http/errors.js';
import { type GuardOptions, guardPlugin, serverOptions } from '../src/http/guard.js';

export const PORT = 4000;
export const HOST = `127.0.0.1:${PORT}`;

export interface GuardApp {
  app: FastifyInstance;
  /** how many times a route handler ran */
  calls: () => number;
}

export async function guardApp(options: Partial<GuardOptions> = {}, server = {}): Promise<GuardApp> {
  const app = Fastify({ ...serverOptions, ...server });
  registerErrorHandling(app);
  await app.register(guardPlugin, { port: PORT, ...options });
  let calls = 0;
  app.get('/', async (_req, reply) => {
    calls++;
    return reply.type('text/html').send('<!doctype html><title>desk</title>');
  });
  app.get('/api/desk/health', async () => {
    calls++;
    return { ok: true };
  });
  for (const method of ['PUT', 'POST', 'PATCH', 'DELETE'] as const) {
    app.route({
      method,
      url: '/api/desk/templates/:name',
      handler: async (req) => {
        calls++;
        return { saved: req.body ?? null };
      },
    });
  }
  await app.ready();
  return { app, calls: () => calls };
}

/** inject with Host set to this service's own name unless the test sets it. */
export function send(app: FastifyInstance, opts: InjectOptions & { headers?: Record<string, string> }) {
  return app.inject({ ...opts, headers: { host: HOST, ...opts.headers } });
}

/** The problem+json `code`, or undefined for a body that is not one. */
export function codeOf(res: { headers: Record<string, unknown>; body: string }): string | undefined {
  if (!String(res.headers['content-type'] ?? '').startsWith('application/problem+json')) return undefined;
  return (JSON.parse(res.body) as { code?: string }).code;
}

/** A JSON body for a save, and its headers. */
export const SAVE = { payload: '{"source":"name: x\\n"}', headers: { 'content-type': 'application/json' } };
