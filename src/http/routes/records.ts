/**
 * The routes proposals and launch drafts answer alike (docs/api.md,
 * Proposals and Launches): create, the list, one record (with `?wait=N`
 * for a decision) and a dismissal. Each kind's routes (proposals.ts,
 * launches.ts) register these in their order, beside their own decisions,
 * with their words, schemas and answer.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { DeskError } from '../../errors.js';
import { RecordDismissSchema, RecordListQuery, WaitQuery } from '../../schema/records.js';
import { errorResponses } from '../schemas.js';
import { askerOf, retryAfter } from './asker.js';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

type Asker = ReturnType<typeof askerOf>;

/** A kind's store (library.proposals, library.launches) as these routes use it. */
export interface RoutedStore<S, V, B> {
  create(body: B, asker: Asker): Promise<V>;
  list(filter: 'pending' | 'decided' | 'all'): Promise<S[]>;
  pending(): Promise<number>;
  keptDecided(): Promise<{ count: number; limit: number }>;
  get(id: string): Promise<V | null>;
  getWhenDecided(id: string, ms: number, signal?: AbortSignal): Promise<V | null>;
  dismiss(id: string, note: string | null, asker: Asker): Promise<V>;
}

export interface RecordRoutesOptions<S, V, B extends TSchema> {
  store: RoutedStore<S, V, Static<B>>;
  /** `/proposals`, `/launches` */
  path: string;
  /** the OpenAPI tag */
  tag: string;
  /** one record in a 404: `proposal`, `launch draft` */
  noun: string;
  /** the record's id in a path */
  id: TSchema;
  /** the list's key for the records: `proposals`, `launches` */
  listKey: string;
  create: B;
  answer: TSchema;
  list: TObject;
  /** each route's summary in the OpenAPI document */
  summaries: { create: string; list: string; get: string; dismiss: string };
  /** the answer of one record, with `code` (default 200) */
  send(reply: FastifyReply, v: V, code?: number): Promise<FastifyReply> | FastifyReply;
}

/** The client went away: a wait on its behalf ends. */
function closedSignal(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  // a response's `close` comes once it is sent or its connection ended; only the second matters before the answer
  reply.raw.once('close', () => ac.abort());
  return ac.signal;
}

/** The shared routes, each registered when called, so a kind keeps its own order in the OpenAPI document. */
export function recordRoutes<S, V, B extends TSchema>(app: App, o: RecordRoutesOptions<S, V, B>) {
  const { store, path, tag, summaries } = o;
  const IdParams = Type.Object({ id: o.id });
  return {
    create() {
      app.post(
        path,
        { schema: { summary: summaries.create, tags: [tag], body: o.create, response: { 201: o.answer, ...errorResponses } } },
        // the allowance and the creator's name (the person's when the desk knows it, whatever the body says) are the store's
        async (req, reply) => o.send(reply, await retryAfter(reply, store.create(req.body as Static<B>, askerOf(req))), 201),
      );
    },
    list() {
      app.get(
        path,
        { schema: { summary: summaries.list, tags: [tag], querystring: RecordListQuery, response: { 200: o.list, ...errorResponses } } },
        async (req) => ({ pending: await store.pending(), kept_decided: await store.keptDecided(), [o.listKey]: await store.list(req.query.status ?? 'pending') }),
      );
    },
    get() {
      app.get(
        `${path}/:id`,
        { schema: { summary: summaries.get, tags: [tag], params: IdParams, querystring: WaitQuery, response: { 200: o.answer, ...errorResponses } } },
        async (req, reply) => {
          const { id } = req.params as { id: string };
          const wait = req.query.wait;
          const v = wait ? await store.getWhenDecided(id, Number(wait) * 1000, closedSignal(reply)) : await store.get(id);
          if (!v) throw new DeskError('not_found', `no ${o.noun} ${id}`);
          return o.send(reply, v);
        },
      );
    },
    dismiss() {
      app.post(
        `${path}/:id/dismiss`,
        {
          schema: { summary: summaries.dismiss, tags: [tag], params: IdParams, body: RecordDismissSchema, response: { 200: o.answer, ...errorResponses } },
          // the body is optional: none is `{}`
          preValidation: async (req) => {
            req.body ??= {};
          },
        },
        async (req, reply) => o.send(reply, await store.dismiss((req.params as { id: string }).id, req.body.note ?? null, askerOf(req))),
      );
    },
  };
}
