/**
 * The process shell (docs/operations.md): config from the environment,
 * the app, listen, and a graceful stop on SIGINT/SIGTERM — fastify closes
 * (in-flight requests finish), then the library closes (in-flight writes
 * finish, the root lock is released). Everything else is in app.ts.
 */
import { mkdir } from 'node:fs/promises';
import closeWithGrace from 'close-with-grace';
import type { FastifyServerOptions } from 'fastify';
import { type App, buildApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';

/** How long in-flight work may take to finish after a signal before the process exits anyway. */
const CLOSE_GRACE_MS = 10_000;

function fail(message: string): never {
  process.stderr.write(`desk-library: ${message}\n`);
  process.exit(1);
}

function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  // Pretty lines for a person at a terminal; JSON lines for anything that collects logs.
  return process.stdout.isTTY
    ? { level: config.logLevel, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } }
    : { level: config.logLevel };
}

export async function start(env: Record<string, string | undefined> = process.env): Promise<App> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message);
    throw e;
  }
  if (config.libraryRoot !== null) await mkdir(config.libraryRoot, { recursive: true });

  let app: App;
  try {
    app = await buildApp({
      libraryOptions: { root: config.libraryRoot },
      logger: loggerOptions(config),
      host: config.host,
      port: config.port,
      allowedHosts: config.allowedHosts,
      ...(config.token ? { token: config.token } : {}),
    });
  } catch (e) {
    // A second server on the same root: the library's RootLockedError names the holder.
    if (e instanceof Error && e.name === 'RootLockedError') fail(e.message);
    throw e;
  }

  closeWithGrace({ delay: CLOSE_GRACE_MS, logger: app.log }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'stopping after an error');
    else app.log.info({ signal }, 'stopping');
    await app.close();
  });

  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (e) {
    app.log.fatal({ err: e }, 'cannot listen');
    await app.close();
    fail(`cannot listen on ${config.host}:${config.port}: ${(e as Error).message}`);
  }
  app.log.info({ library_root: config.libraryRoot, token: config.token !== undefined }, 'desk-library ready');
  return app;
}

await start();
