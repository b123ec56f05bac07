/**
 * Builds the fastify app from options and never listens (fastify's Testing
 * guide; fastify/demo src/app.ts). Tests call buildApp and `app.inject`;
 * src/server.ts adds config, listen and graceful close.
 */
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { errorCodeOf, registerErrorHandling } from './http/errors.js';
import { eventRoutes } from './http/events.js';
import { type EventStreamOptions, EventStreams } from './http/events-stream.js';
import { guardPlugin, loggedUrl, serverOptions, stoppingGuard } from './http/guard.js';
import { completeDocument, type OpenApiDocument } from './http/openapi.js';
import { catalogueRoutes } from './http/routes/catalogue.js';
import { compareRoutes } from './http/routes/compare.js';
import { historyRoutes } from './http/routes/history.js';
import { launchRoutes } from './http/routes/launch.js';
import { launchRoutes as launchDraftRoutes } from './http/routes/launches.js';
import { mcpRoutes } from './http/routes/mcp.js';
import { metaRoutes } from './http/routes/meta.js';
import { meRoutes } from './http/routes/me.js';
import { proposalRoutes } from './http/routes/proposals.js';
import { roleRoutes } from './http/routes/roles.js';
import { settingsRoutes } from './http/routes/settings.js';
import { syncRoutes } from './http/routes/sync.js';
import { templateRoutes } from './http/routes/templates.js';
import { upgradeRoutes } from './http/routes/upgrade.js';
import type { AuthProxyOptions } from './http/auth.js';
import type { AuthRateOptions } from './http/auth-rate.js';
import { UserDirectory } from './http/users-directory.js';
import { SHARED_SCHEMAS } from './http/schemas.js';
import { lazySerializers } from './http/lazy-serializers.js';
import { type Library, type LibraryOptions, openLibrary, openRecords, type RecordStoreSettings, type RecordsOptions, type SyncOptions } from './library/index.js';
import { packageVersion } from './paths.js';
import { type WebOptions, webPlugin } from './http/static.js';

export const API_PREFIX = '/api/desk';

/** What openLibrary takes, less the logger: the app passes a child of its own. */
export type LibraryOpenOptions = Omit<LibraryOptions, 'logger'>;

export interface AppOptions {
  /** a library the caller opened and will close; else `libraryOptions` opens one that the app closes */
  library?: Library;
  libraryOptions?: LibraryOpenOptions;
  /** fastify's `logger` option; default false (tests) */
  logger?: FastifyServerOptions['logger'];
  /** a ready pino logger, instead of `logger` */
  loggerInstance?: FastifyBaseLogger;
  /** bearer token every /api request must carry; null or absent for none (loopback only) */
  token?: string | null;
  /** the desk's users (DESK_USERS_FILE, DESK_TOKEN's `desk` among them); given, `token` is not read; default `token`'s alone */
  users?: UserDirectory;
  /** a trusted auth proxy (DESK_AUTH_PROXY_HEADER, DESK_TRUSTED_PROXIES, DESK_AUTH_PROXY_ROLE); default none */
  authProxy?: AuthProxyOptions | null;
  /** the failed-authentication limit per client address; defaults in http/auth-rate.ts */
  authRate?: AuthRateOptions;
  /** the listen address (HOST); a specific one is also a name Host may carry; default none */
  host?: string;
  /** the port Host and Origin must carry; default 0: the port the server is bound to */
  port?: number;
  /** extra host names the service answers to (DESK_ALLOWED_HOSTS); default none */
  allowedHosts?: string[];
  /** where the settings page's files are, or false to serve no page; default the package's */
  web?: WebOptions | false;
  /**
   * the events stream's heartbeat and bounds (src/http/events-stream.ts), and `watchMs`, the watcher's
   * relist interval, given to the library the app opens; defaults there. A caller's library has its
   * watcher already: pass `watch.relistMs` to openLibrary.
   */
  events?: EventStreamOptions & { watchMs?: number };
  /**
   * the team's remote (DESK_LIBRARY_REMOTE, DESK_SYNC_INTERVAL; docs/history.md, Sync), given to the library the
   * app opens, which builds its sync; default none: no sync. A caller's library was opened with its own (LibraryOptions.sync).
   */
  sync?: Omit<SyncOptions, 'logger'>;
  /**
   * the proposal store's bounds (DESK_DECIDED_KEEP, DESK_PROPOSALS_PER_HOUR; library/records.ts), given to
   * the library the app opens; a caller's own library was opened with its own (LibraryOptions.records)
   */
  proposals?: RecordStoreSettings;
  /** the launch-draft store's, likewise (DESK_LAUNCHES_PER_HOUR; `decidedKeep` defaults to the proposals') */
  launches?: RecordStoreSettings;
  /** waits for a decision held at once, proposals and drafts together; default in library/records/waiters.ts */
  maxWaiters?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** the open event streams (GET /api/desk/events), for stats */
    eventStreams: EventStreams;
  }
}

export type App = FastifyInstance;

export async function buildApp(options: AppOptions = {}): Promise<App> {
  const app = Fastify({
    ...serverOptions,
    ...(options.loggerInstance ? { loggerInstance: options.loggerInstance } : { logger: options.logger ?? false }),
    // Validation never rewrites a request: unknown keys are a 400 (body
    // schemas say additionalProperties: false), types are not coerced, and no
    // default is filled in behind the client's back.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false } },
    // each route's answer serializer compiled at its first answer, not at the start (lazy-serializers.ts)
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
    // One line per request (docs/operations.md, Logs), written below when the answer is sent,
    // instead of fastify's two ("incoming request", "request completed").
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<TypeBoxTypeProvider>();

  registerErrorHandling(app);
  stoppingGuard(app);
  app.addHook('onResponse', async (req, reply) => {
    const code = errorCodeOf(req);
    req.log.info(
      {
        method: req.method,
        url: loggedUrl(req.url),
        status: reply.statusCode,
        ...(code ? { code } : {}),
        ms: Math.round(reply.elapsedTime),
        who: req.ip,
        ...(req.deskUser ? { user: req.deskUser.name } : {}),
      },
      'request',
    );
  });
  for (const s of SHARED_SCHEMAS) app.addSchema(s);

  // one directory for the guard and the commit authors: a user is who a request is, and who its commit is by
  const users = options.users ?? UserDirectory.open({ token: options.token ?? null });
  let library = options.library;
  const records: RecordsOptions = {
    ...(options.proposals ? { proposals: options.proposals } : {}),
    launches: { ...(options.proposals?.decidedKeep !== undefined ? { decidedKeep: options.proposals.decidedKeep } : {}), ...options.launches },
    ...(options.maxWaiters !== undefined ? { maxWaiters: options.maxWaiters } : {}),
  };
  if (library && (options.proposals || options.launches || options.maxWaiters !== undefined)) {
    throw new Error("buildApp: a caller's library has its record stores already; pass their bounds to openLibrary (records)");
  }
  if (library && (options.sync || options.events?.watchMs !== undefined)) {
    throw new Error("buildApp: a caller's library has its sync and watcher already; pass their options to openLibrary (sync, watch)");
  }
  if (!library) {
    if (!options.libraryOptions) throw new Error('buildApp needs a library or libraryOptions');
    const history = { authorOf: (who: string) => users.authorOf(who), ...options.libraryOptions.history };
    const events = app.log.child({ component: 'events' });
    library = await openLibrary({
      records,
      ...(options.sync ? { sync: { ...options.sync, logger: app.log.child({ component: 'sync' }) } } : {}),
      watch: {
        ...(options.events?.watchMs !== undefined ? { relistMs: options.events.watchMs } : {}),
        onError: (err) => events.warn({ err }, 'a look for changes on disk failed; trying again'),
      },
      ...options.libraryOptions,
      history,
      logger: app.log.child({ component: 'library' }),
    });
    const opened = library;
    app.addHook('onClose', async () => opened.close());
  }

  // the library's sync (built by openLibrary) runs from when the app is ready until it closes, before the library
  // does; a round's commit is queued by the library's history, so it carries the library's author (DESK_AUTHOR)
  const sync = library.sync ?? null;
  if (sync) {
    app.addHook('onReady', async () => sync.start());
    app.addHook('preClose', async () => sync.stop());
  }

  // the library's proposal and launch-draft stores, opened with it (library/records.ts); a stand-in library
  // (tests) has none, so the app opens them over it, once, and closes them
  const own = (library as Partial<Library>).proposals ? null : openRecords(library, records, app.log.child({ component: 'records' }));
  const proposals = own?.proposals ?? library.proposals;
  const launches = own?.launches ?? library.launches;
  // read both folders and finish an interrupted proposal save at the start, before any template changes
  app.addHook('onReady', async () => {
    await proposals.ready();
    await launches.ready();
  });
  // before the server waits for open requests: every wait for a decision answers now, with the record as it is
  app.addHook('preClose', async () => (own ?? library).stopWaiting());
  if (own) app.addHook('onClose', async () => own.close());

  const streams = new EventStreams(library, options.events, app.log.child({ component: 'events' }));
  app.decorate('eventStreams', streams);
  // preClose, before the server stops taking connections: an open stream would hold server.close() for ever
  app.addHook('preClose', async () => streams.closeAll());

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'desk-library',
        version: packageVersion,
        description: 'The template library behind the desk (docs/api.md)',
        license: { name: 'MIT', identifier: 'MIT' },
      },
    },
    // Shared schemas become components named by their $id.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // operationIds, security, each error status as problem+json, ETag (src/http/openapi.ts)
    transformObject: (d) => completeDocument((d as { openapiObject: OpenApiDocument }).openapiObject, API_PREFIX),
  });

  // Host, Origin, who is asking and may they, and JSON-only bodies, before any route (docs/security.md).
  await app.register(guardPlugin, {
    port: options.port ?? 0,
    ...(options.host ? { host: options.host } : {}),
    allowedHosts: options.allowedHosts ?? [],
    users,
    authProxy: options.authProxy ?? null,
    ...(options.authRate ? { authRate: options.authRate } : {}),
  });

  await app.register(
    async (api) => {
      const opts = { library: library! };
      await api.register(templateRoutes, opts);
      await api.register(settingsRoutes, opts);
      await api.register(compareRoutes, opts);
      await api.register(historyRoutes, opts);
      await api.register(launchRoutes, opts);
      await api.register(roleRoutes, opts);
      await api.register(metaRoutes, opts);
      await api.register(meRoutes);
      await api.register(catalogueRoutes, opts);
      await api.register(proposalRoutes, { ...opts, store: proposals });
      await api.register(launchDraftRoutes, { store: launches });
      // the conductor's MCP server (docs/conductor.md): the same stores, over MCP
      await api.register(mcpRoutes, { ...opts, proposals, launches });
      await api.register(eventRoutes, { ...opts, streams });
      await api.register(syncRoutes, { ...opts, sync });
      await api.register(upgradeRoutes, opts);
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: API_PREFIX },
  );

  // The settings page at `/`.
  if (options.web !== false) await app.register(webPlugin, options.web ?? {});

  return app;
}
