/**
 * Launch drafts (docs/api.md, Launches): a conductor drafts a launch of a
 * template, the operator approves or dismisses it (or the conductor
 * withdraws it), and the conductor hears the decision — from the events
 * stream, or with plain HTTP by `GET …/launches/:id?wait=N`. The desk starts
 * nothing: `approved` and its runs are what the conductor reads. Thin: the
 * store (src/library/records/launch.ts) keeps, previews and decides them.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import { DeskError } from '../../errors.js';
import { isRefusal, launchAnswer, type LaunchStore, type LaunchView } from '../../library/index.js';
import {
  LaunchAnswerSchema,
  LaunchApproveSchema,
  LaunchCreateSchema,
  LaunchDismissSchema,
  LaunchId,
  LaunchListQuery,
  LaunchListSchema,
  LaunchRefusalSchema,
  WaitQuery,
} from '../../schema/launches.js';
import { precondition } from '../answers.js';
import { errorResponses } from '../schemas.js';
import { askerOf, retryAfter } from './asker.js';

const IdParams = Type.Object({ id: LaunchId });


/**
 * A draft's answer, written by JSON.stringify rather than the response
 * schema's serializer: that one checks each nullable value with ajv (seven
 * a node, 700 nodes for 100 tickets) and compiles those checks at a route's
 * first answer, which costs more than the draft itself (docs/performance.md).
 * launchAnswer names every field, and test/http-launches.test.ts checks the
 * answers against LaunchAnswerSchema. Encoded once, here: a string answer is
 * walked again for its length and again to send it, and a template with one
 * character past Latin-1 makes every prompt of it a two-byte string.
 */
function sendDraft(reply: FastifyReply, v: LaunchView): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(Buffer.from(JSON.stringify(launchAnswer(v)), 'utf8'));
}

/** The client went away: a wait on its behalf ends. */
function closedSignal(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  // a response's `close` comes once it is sent or its connection ended; only the second matters before the answer
  reply.raw.once('close', () => ac.abort());
  return ac.signal;
}

/**
 * `store`: the library's launch-draft store (library.launches), opened once
 * with the library; its bounds, allowances and rules on who may withdraw
 * what are the store's, so every caller meets the same ones. The app starts
 * and stops it.
 */
export const launchRoutes: FastifyPluginAsyncTypebox<{ store: LaunchStore }> = async (app, o) => {
  const { store } = o;

  const notFound = (id: string) => new DeskError('not_found', `no launch draft ${id}`);

  app.post(
    '/launches',
    {
      schema: {
        summary: 'Draft a launch of a template for the operator to approve; inputs that do not check are refused',
        tags: ['launches'],
        body: LaunchCreateSchema,
        response: { 201: LaunchAnswerSchema, ...errorResponses },
      },
    },
    // the allowance and the creator's name (the person's when the desk knows it, whatever the body says) are the store's
    async (req, reply) => sendDraft(reply.code(201), await retryAfter(reply, store.create(req.body, askerOf(req)))),
  );

  app.get(
    '/launches',
    {
      schema: {
        summary: 'The launch drafts, newest first, without inputs or preview; `pending` counts those waiting',
        tags: ['launches'],
        querystring: LaunchListQuery,
        response: { 200: LaunchListSchema, ...errorResponses },
      },
    },
    async (req) => ({ pending: await store.pending(), kept_decided: await store.keptDecided(), launches: await store.list(req.query.status ?? 'pending') }),
  );

  app.get(
    '/launches/:id',
    {
      schema: {
        summary: 'One launch draft with its preview; `?wait=N` waits up to N seconds for a decision while pending',
        tags: ['launches'],
        params: IdParams,
        querystring: WaitQuery,
        response: { 200: LaunchAnswerSchema, ...errorResponses },
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const wait = req.query.wait;
      const v = wait ? await store.getWhenDecided(id, Number(wait) * 1000, closedSignal(reply)) : await store.get(id);
      if (!v) throw notFound(id);
      return sendDraft(reply, v);
    },
  );

  app.post(
    '/launches/:id/approve',
    {
      schema: {
        summary: 'Approve the draft: it becomes approved with the runs to start; the desk starts nothing',
        tags: ['launches'],
        params: IdParams,
        headers: Type.Object({
          'if-match': Type.Optional(Type.String({ description: "the draft's etag as its GET showed it; a stale one is 412, with the draft refreshed" })),
        }),
        body: LaunchApproveSchema,
        response: { 200: LaunchAnswerSchema, 409: LaunchRefusalSchema, 412: LaunchRefusalSchema, 422: LaunchRefusalSchema, ...errorResponses },
      },
      // the body is optional: none is `{}`
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req, reply) => {
      const r = await store.approve(req.params.id, { ifMatch: precondition(req.headers['if-match']), note: req.body.note ?? null }, askerOf(req));
      if (!isRefusal(r)) return sendDraft(reply, r);
      const draft = launchAnswer(r.view);
      // a refusal for the inputs or the template lists why; the draft shows the rest
      throw new DeskError(r.code, r.detail, { ...(r.view.preview.ok ? {} : { problems: r.view.preview.problems }), draft });
    },
  );

  app.post(
    '/launches/:id/dismiss',
    {
      schema: {
        summary: 'Dismiss the draft, with an optional note for the conductor',
        tags: ['launches'],
        params: IdParams,
        body: LaunchDismissSchema,
        response: { 200: LaunchAnswerSchema, ...errorResponses },
      },
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req, reply) => sendDraft(reply, await store.dismiss(req.params.id, req.body.note ?? null, askerOf(req))),
  );

  app.post(
    '/launches/:id/withdraw',
    {
      schema: {
        summary: 'Withdraw a pending draft: the conductor that drafted it no longer wants it',
        tags: ['launches'],
        params: IdParams,
        response: { 200: LaunchAnswerSchema, ...errorResponses },
      },
    },
    async (req, reply) => sendDraft(reply, await store.withdraw(req.params.id, askerOf(req))),
  );
};
