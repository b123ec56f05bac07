/**
 * The process shell: config from the environment, the app, listen, and a
 * graceful stop on SIGINT/SIGTERM (docs/operations.md, "Stopping") — the
 * listener closes, in-flight requests finish and their keep-alive sockets
 * close, then the library closes (in-flight writes finish, the root lock is
 * released), exit 0. SIGHUP reads the users file again (docs/security.md,
 * Users and roles). Everything else is in app.ts.
 */
import { mkdir } from 'node:fs/promises';
import type { Server, ServerResponse } from 'node:http';
import closeWithGrace from 'close-with-grace';
import { pino } from 'pino';
import { type App, buildApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { isDeskError } from './errors.js';
import { processConnectionCap } from './http/connection-cap.js';
import { isLoopbackHost } from './http/guard.js';
import { UserDirectory, UsersFileError } from './http/users-directory.js';

/** How long in-flight work may take to finish after a signal before the process exits 1 anyway (the lock is still removed at exit). */
const CLOSE_GRACE_MS = 10_000;
/**
 * Sockets still open this long after a signal are closed, answered or not:
 * a save takes milliseconds, so only a slow client is cut, and the handlers
 * behind it still finish before the library closes. Well inside Docker's 10 s
 * before its SIGKILL.
 */
const DRAIN_MS = 3_000;

function fail(message: string): never {
  process.stderr.write(`desk-library: ${message}\n`);
  process.exit(1);
}

function makeLogger(config: Config) {
  // Pretty lines for a person at a terminal; JSON lines for anything that collects logs.
  return process.stdout.isTTY
    ? pino({ level: config.logLevel, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } })
    : pino({ level: config.logLevel });
}

/**
 * Keep-alive sockets must not hold a stop open: node's server.close() ends
 * only idle sockets, and one whose request is in flight goes back to idle
 * after its answer and waits there for the client's next request (up to the
 * keep-alive timeout, far past the grace). Once stopping, every answer not
 * yet started says `connection: close` (node then ends the socket after it,
 * and the client does not reuse it), sockets that go idle are closed at
 * once, and whatever is still open after DRAIN_MS is closed.
 */
function drainOnStop(server: Server): () => void {
  const inFlight = new Set<ServerResponse>();
  let stopping = false;
  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
    res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
  };
  // after fastify's own listener, which was added first
  server.on('request', (_req, res: ServerResponse) => {
    if (stopping) return closeAfter(res);
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  return () => {
    stopping = true;
    for (const res of inFlight) closeAfter(res);
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), DRAIN_MS).unref();
  };
}

/**
 * A users file that lists nobody (0 bytes, or `users: []`) with no
 * DESK_TOKEN and no auth proxy beside it lets nobody in. That is safe, but on
 * an address others reach it is almost surely a mistake (the last user
 * removed, the wrong file mounted) that would serve only 401s, so the start
 * is refused there, naming why; on loopback the operator is told and the
 * desk starts, waiting for `desk-library user add`.
 */
function refuseNobody(config: Config, users: UserDirectory, log: ReturnType<typeof makeLogger>): void {
  if (!users.nobody || config.authProxy !== null) return;
  const why = `DESK_USERS_FILE ${users.file} lists nobody and DESK_TOKEN is not set, so nobody can sign in`;
  if (!isLoopbackHost(config.host)) fail(`${why}; refused on HOST ${config.host}. Add a user first: desk-library user add NAME --role editor --users-file ${users.file}`);
  log.warn({ users_file: users.file, users: 0 }, `${why} until one is added (desk-library user add)`);
}

export async function start(env: Record<string, string | undefined> = process.env): Promise<App> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message);
    throw e;
  }
  let users: UserDirectory;
  try {
    users = UserDirectory.open({ file: config.usersFile, token: config.token ?? null });
  } catch (e) {
    // a malformed file refuses the start, naming every problem in it
    if (e instanceof UsersFileError) fail(e.message);
    throw e;
  }
  const log = makeLogger(config);
  refuseNobody(config, users, log);

  let app: App | null = null;
  let startDrain: (() => void) | null = null;
  // Installed before the library opens, so a stop during the lock wait or the
  // recovery of interrupted writes is a clean one too: there is nothing to
  // drain yet, and exiting there is no worse than the crash recovery is made
  // for; the root lock, if already taken, is removed at exit (root-lock.ts).
  // SIGHUP is not a stop here: it reloads the users file (below), as daemons read their config again on it
  closeWithGrace({ delay: CLOSE_GRACE_MS, logger: log, skip: ['SIGHUP'] }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'stopping after an error');
    else log.info({ signal, ready: app !== null }, 'stopping');
    users.unwatch();
    if (!app) return;
    const since = Date.now();
    startDrain?.();
    await app.close();
    log.info({ ms: Date.now() - since }, 'stopped');
  });
  process.on('SIGHUP', () => {
    if (users.file === null) log.info({ signal: 'SIGHUP' }, 'no users file to read again (DESK_USERS_FILE)');
    else void users.reload(log);
  });
  // Another server took the root after this one stalled past the stale bound,
  // or the lock was deleted: every write from here on could land in a library
  // another server now owns. Exit at once rather than finish them; an
  // interrupted write is finished or discarded at the next start.
  const onLockLost = (root: string, err: Error): void => {
    log.fatal({ err, library_root: root }, 'root lock lost; exiting');
    process.exit(1);
  };

  if (config.libraryRoot !== null) await mkdir(config.libraryRoot, { recursive: true });
  // before the lock, which may wait up to its stale bound for a holder that stopped without a word
  log.info({ library_root: config.libraryRoot }, 'opening the library');
  try {
    app = await buildApp({
      libraryOptions: { root: config.libraryRoot, history: { author: config.author }, onLockLost },
      loggerInstance: log,
      host: config.host,
      port: config.port,
      allowedHosts: config.allowedHosts,
      users,
      authProxy: config.authProxy,
      proposals: { decidedKeep: config.decidedKeep, perHour: config.proposalsPerHour },
      launches: { perHour: config.launchesPerHour },
      ...(config.libraryRemote ? { sync: { remote: config.libraryRemote, intervalMs: config.syncInterval * 1000 } } : {}),
    });
  } catch (e) {
    // A second server on the same root: the library's RootLockedError names the holder.
    if (e instanceof Error && e.name === 'RootLockedError') fail(e.message);
    // A broken harness: one line naming each template and problem, no stack.
    if (isDeskError(e) && e.code === 'shipped_invalid') fail(e.message);
    throw e;
  }
  startDrain = drainOnStop(app.server);
  // past it node closes a new connection at once, before it can take the descriptors the library reads with
  const cap = processConnectionCap();
  app.server.maxConnections = cap.maxConnections;

  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (e) {
    app.log.fatal({ err: e }, 'cannot listen');
    await app.close();
    fail(`cannot listen on ${config.host}:${config.port}: ${(e as Error).message}`);
  }
  users.watch(log);
  app.log.info(
    { library_root: config.libraryRoot, token: config.token !== undefined, users_file: config.usersFile, users: users.size, auth_proxy: config.authProxy !== null, max_connections: cap.maxConnections, open_files: cap.openFiles },
    'desk-library ready',
  );
  return app;
}

await start();
