/**
 * The three routes of a name's history, alike for templates and roles
 * (docs/api.md, History): its versions newest first and paged, one version's
 * files, and a restore. What a version is and how it loads or is saved again
 * is the library's (src/library/history/versions.ts); what differs here
 * between the two kinds is each one's schemas and answers.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TSchema, type TString, Type } from '@sinclair/typebox';
import { DeskError } from '../../errors.js';
import { historyOf, type RestoreOptions, restoreVersion, versionAt, type VersionKind, versionsPage } from '../../library/index.js';
import type { Library } from '../../library/types.js';
import { CommitId, HISTORY_LIMITS, HistoryAnswerSchema, HistoryQuery, RestoreBody } from '../../schema/history.js';
import { ifMatch, withEtag } from '../answers.js';
import { notFound } from '../errors.js';
import { errorResponses } from '../schemas.js';
import { whoOf } from '../auth.js';

type Api = Parameters<FastifyPluginAsyncTypebox>[0];

export interface VersionRoutes<F, N> {
  /** the library's rules of the kind's versions */
  history: VersionKind<F, N>;
  /** the schema of the name in the URL */
  name: TString;
  /** GET …/versions/:commit: its summary, schema, and the version's fields in it */
  versionRoute: { summary: string; schema: TSchema };
  fields(f: F): object;
  /** POST …/restore: answered as the kind's save is */
  restoreRoute: { summary: string; schema: TSchema };
  /** what the save is asked for beyond its preconditions (a template's card) */
  restoreOptions?: Pick<RestoreOptions, 'card'>;
  answer(saved: N): object;
  etagOf(saved: N): string;
}

const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'the ETag last seen; a stale one gets 412' })),
});

/**
 * Where a page starts: `?before=` (a commit, in the walk from HEAD now) or
 * `?cursor=` (the same walk as the page before), never both: they name two
 * walks. The schema has checked each one's form.
 */
export function pageStart(q: { before?: string; cursor?: string }): { before: string } | { cursor: string } | Record<string, never> {
  if (q.before !== undefined && q.cursor !== undefined) throw new DeskError('bad_request', 'querystring: pass before or cursor, not both');
  if (q.cursor !== undefined) return { cursor: q.cursor };
  return q.before !== undefined ? { before: q.before } : {};
}

/** `?limit=` as a number within its bounds; the schema has checked it is digits. */
export function pageLimit(raw: string | undefined): number {
  if (raw === undefined) return HISTORY_LIMITS.defaultLimit;
  const n = Number(raw);
  if (n < 1 || n > HISTORY_LIMITS.maxLimit) throw new DeskError('bad_request', `querystring/limit must be 1 to ${HISTORY_LIMITS.maxLimit}`);
  return n;
}

export function versionRoutes<F, N>(app: Api, library: Library, r: VersionRoutes<F, N>): void {
  const k = r.history;
  const base = `/${k.kind}s/:name`;
  const params = Type.Object({ name: r.name });

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
      // without history every history route is 503, whatever the query says
      historyOf(library);
      const page = await versionsPage(library, k, name, { limit: pageLimit(req.query.limit), ...pageStart(req.query) });
      if (!page) throw notFound(k.kind, name);
      return page;
    },
  );

  app.get(
    `${base}/versions/:commit`,
    {
      schema: {
        summary: r.versionRoute.summary,
        tags: ['history'],
        params: Type.Object({ name: r.name, commit: CommitId }),
        response: { 200: r.versionRoute.schema, ...errorResponses },
      },
    },
    async (req) => {
      const { name, commit } = req.params;
      const f = await versionAt(library, k, name, commit);
      return { commit, ...r.fields(f), etag: k.etag(f) };
    },
  );

  app.post(
    `${base}/restore`,
    {
      schema: {
        summary: r.restoreRoute.summary,
        tags: ['history'],
        params,
        headers: IfMatchHeaders,
        body: RestoreBody,
        response: { 200: Type.Ref(r.restoreRoute.schema), ...errorResponses },
      },
    },
    async (req, reply) => {
      const saved = await restoreVersion(library, k, req.params.name, req.body.commit, { ...r.restoreOptions, ifMatch: ifMatch(req.headers['if-match']), who: whoOf(req) });
      withEtag(reply, r.etagOf(saved));
      return r.answer(saved);
    },
  );
}
