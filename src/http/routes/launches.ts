/**
 * Launch drafts (docs/api.md, Launches): a conductor drafts a launch of a
 * template, the operator approves or dismisses it (or the conductor
 * withdraws it), and the conductor hears the decision — from the events
 * stream, or with plain HTTP by `GET …/launches/:id?wait=N`. The desk starts
 * nothing: `approved` and its runs are what the conductor reads. Thin: the
 * store (src/library/records/launch.ts) keeps, previews and decides them.
 * Create, list, get and dismiss are the routes every record kind answers
 * alike (records.ts); approve and withdraw are a draft's own.
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
  LaunchId,
  LaunchListSchema,
  LaunchRefusalSchema,
} from '../../schema/launches.js';
import { precondition } from '../answers.js';
import { errorResponses } from '../schemas.js';
import { askerOf } from './asker.js';
import { recordRoutes } from './records.js';

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

/**
 * `store`: the library's launch-draft store (library.launches), opened once
 * with the library; its bounds, allowances and rules on who may withdraw
 * what are the store's, so every caller meets the same ones. The app starts
 * and stops it.
 */
export const launchRoutes: FastifyPluginAsyncTypebox<{ store: LaunchStore }> = async (app, o) => {
  const { store } = o;
  const IdParams = Type.Object({ id: LaunchId });

  const routes = recordRoutes(app, {
    store,
    path: '/launches',
    tag: 'launches',
    noun: 'launch draft',
    id: LaunchId,
    listKey: 'launches',
    create: LaunchCreateSchema,
    answer: LaunchAnswerSchema,
    list: LaunchListSchema,
    summaries: {
      create: 'Draft a launch of a template for the operator to approve; inputs that do not check are refused',
      list: 'The launch drafts, newest first, without inputs or preview; `pending` counts those waiting',
      get: 'One launch draft with its preview; `?wait=N` waits up to N seconds for a decision while pending',
      dismiss: 'Dismiss the draft, with an optional note for the conductor',
    },
    send: (reply, v: LaunchView, code = 200) => sendDraft(reply.code(code), v),
  });
  routes.create();
  routes.list();
  routes.get();

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

  routes.dismiss();

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
