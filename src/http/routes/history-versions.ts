/**
 * The three routes of a name's history, alike for templates and roles
 * (docs/api.md, History): its versions newest first and paged, one version's
 * files, and a restore. What differs between the two kinds — which files a
 * version is, how they would load (state, ETag), how they are saved again —
 * is each kind's, given as functions.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TSchema, type TString, Type } from '@sinclair/typebox';
import type { HistoryApi } from '../../library/history/types.js';
import type { Library, WriteOptions } from '../../library/types.js';
import { CommitId, HistoryAnswerSchema, HistoryQuery, RestoreBody, type VersionState } from '../../schema/history.js';
import { ifMatch, withEtag } from '../answers.js';
import { notFound } from '../errors.js';
import { errorResponses } from '../schemas.js';
import { historyOf, noVersion, onePage, pageLimit, shortCommit, versionOf } from './history-read.js';

type Api = Parameters<FastifyPluginAsyncTypebox>[0];

export interface VersionKind<F, N> {
  kind: 'template' | 'role';
  /** the schema of the name in the URL */
  name: TString;
  /** the path whose commits are the name's versions: a template's file, a role's folder */
  logPath(name: string): string;
  /** the files one version is read from, in order */
  files(name: string): string[];
  /** those files' texts as a version; null when the name had no copy there */
  version(texts: (string | null)[]): F | null;
  /** the name as it loads now; null when nothing does */
  now(library: Library, name: string): Promise<N | null>;
  state(f: F | null, now: N | null): VersionState;
  /** the ETag the version would answer with, as GET computes it */
  etag(f: F): string;
  /** GET …/versions/:commit: its summary, schema, and the version's fields in it */
  versionRoute: { summary: string; schema: TSchema };
  fields(f: F): object;
  /** POST …/restore: a save of the version's files, with the save's checks and refusals, answered as the save is */
  restoreRoute: { summary: string; schema: TSchema };
  /** the save's name check, before any git read */
  checkName(name: string): void;
  restore(library: Library, name: string, f: F, commit: string, w: Pick<WriteOptions, 'ifMatch' | 'who' | 'restoredFrom'>): Promise<{ etag: string; answer: object }>;
}

const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'the ETag last seen; a stale one gets 412' })),
});

/** One version of a name (one git process for all its files), or null when it had no copy at that commit. */
export async function showVersion<F, N>(h: HistoryApi, k: VersionKind<F, N>, name: string, commit: string): Promise<F | null> {
  return k.version(await h.showMany(k.files(name).map((path) => ({ path, commit }))));
}

export function versionRoutes<F, N>(app: Api, library: Library, k: VersionKind<F, N>): void {
  const base = `/${k.kind}s/:name`;
  const params = Type.Object({ name: k.name });
  const known = async (name: string, commit: string): Promise<F> => {
    const f = await showVersion(historyOf(library), k, name, commit);
    if (f === null) throw noVersion(k.kind, name, commit);
    return f;
  };

  app.get(
    `${base}/history`,
    {
      schema: {
        summary: `A ${k.kind}'s versions, newest first, paged`,
        tags: ['history'],
        params,
        querystring: HistoryQuery,
        response: { 200: HistoryAnswerSchema, ...errorResponses },
      },
    },
    async (req) => {
      const { name } = req.params;
      const h = historyOf(library);
      const limit = pageLimit(req.query.limit);
      const now = await k.now(library, name);
      // read your writes: a save answered a moment ago is in the list
      await h.settle();
      const page = await onePage((n) => h.log(k.logPath(name), { limit: n, ...(req.query.before ? { before: req.query.before } : {}) }), limit);
      // a name that loads nothing and never had a commit is not one of its kind
      if (!now && page.items.length === 0 && !req.query.before) throw notFound(k.kind, name);
      const files = k.files(name);
      const texts = await h.showMany(page.items.flatMap((e) => files.map((path) => ({ path, commit: e.commit }))));
      const versions = page.items.map((e, i) => {
        const f = k.version(texts.slice(i * files.length, (i + 1) * files.length));
        return versionOf(e, k.state(f, now), f === null ? null : k.etag(f));
      });
      return { versions, next: page.next };
    },
  );

  app.get(
    `${base}/versions/:commit`,
    {
      schema: {
        summary: k.versionRoute.summary,
        tags: ['history'],
        params: Type.Object({ name: k.name, commit: CommitId }),
        response: { 200: k.versionRoute.schema, ...errorResponses },
      },
    },
    async (req) => {
      const { name, commit } = req.params;
      const f = await known(name, commit);
      return { commit, ...k.fields(f), etag: k.etag(f) };
    },
  );

  app.post(
    `${base}/restore`,
    {
      schema: {
        summary: k.restoreRoute.summary,
        tags: ['history'],
        params,
        headers: IfMatchHeaders,
        body: RestoreBody,
        response: { 200: Type.Ref(k.restoreRoute.schema), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { name } = req.params;
      const { commit } = req.body;
      k.checkName(name);
      const f = await known(name, commit);
      const saved = await k.restore(library, name, f, commit, { ifMatch: ifMatch(req.headers['if-match']), who: req.ip, restoredFrom: shortCommit(commit) });
      withEtag(reply, saved.etag);
      return saved.answer;
    },
  );
}
