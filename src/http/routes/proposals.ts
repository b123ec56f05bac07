/**
 * Proposals (docs/api.md, Proposals): a conductor proposes a template, it
 * waits for the operator, who saves it into the library or dismisses it.
 * Thin: the store (src/library/records/proposal.ts) keeps and decides them,
 * and commits and announces each record it writes; the card is the one
 * propose answers (src/library/records/proposal-card.ts), worked out at each read.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { DeskError } from '../../errors.js';
import { proposalAnswer, type ProposalRecord, type ProposalStore } from '../../library/index.js';
import type { Library } from '../../library/types.js';
import {
  ProposalAnswerSchema,
  ProposalCreateSchema,
  ProposalDismissSchema,
  ProposalId,
  ProposalListQuery,
  ProposalListSchema,
  ProposalSaveSchema,
} from '../../schema/proposals.js';
import { WaitQuery } from '../../schema/launches.js';
import { precondition } from '../answers.js';
import { errorResponses } from '../schemas.js';
import { askerOf, retryAfter } from './asker.js';

const IdParams = Type.Object({ id: ProposalId });

const SaveHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'the ETag of the template of that name, when one exists; a stale one gets 412' })),
  'if-none-match': Type.Optional(Type.String({ description: '`*`: insist on a new name — 412 when the name already exists' })),
});

/**
 * POST /proposals/:id/save: the schema's name, and `source`, the proposal as
 * the operator edited it, saved instead (validated like any save; the
 * decision's note says it was edited).
 */
const ProposalSaveBody = Type.Object(
  {
    ...ProposalSaveSchema.properties,
    source: Type.Optional(Type.String({ description: 'the text to save instead of the proposal’s own: the operator’s edit of it, validated like any save' })),
  },
  { additionalProperties: false, description: ProposalSaveSchema.description },
);

/**
 * `store`: the library's proposal store (library.proposals), opened once
 * with the library; its bounds, allowances and rules on who may do what are
 * the store's, so every caller meets the same ones. The app starts and stops it.
 */
export const proposalRoutes: FastifyPluginAsyncTypebox<{ library: Library; store: ProposalStore }> = async (app, o) => {
  const { library, store } = o;

  const answer = (r: ProposalRecord) => proposalAnswer(library, r);
  const known = async (id: string) => {
    const r = await store.get(id);
    if (!r) throw new DeskError('not_found', `no proposal ${id}`);
    return r;
  };

  app.post(
    '/proposals',
    {
      schema: {
        summary: 'Keep a proposed template for the operator to decide; an invalid one is kept and says so',
        tags: ['proposals'],
        body: ProposalCreateSchema,
        response: { 201: ProposalAnswerSchema, ...errorResponses },
      },
    },
    async (req, reply) => {
      // the allowance and the creator's name (the person's when the desk knows it, whatever the body says) are the store's
      const r = await retryAfter(reply, store.create(req.body, askerOf(req)));
      return reply.code(201).send(await answer(r));
    },
  );

  app.get(
    '/proposals',
    {
      schema: {
        summary: 'The proposals, newest first, without their cards; `pending` counts those waiting',
        tags: ['proposals'],
        querystring: ProposalListQuery,
        response: { 200: ProposalListSchema, ...errorResponses },
      },
    },
    async (req) => {
      const proposals = await store.list(req.query.status ?? 'pending');
      return { pending: await store.pending(), kept_decided: await store.keptDecided(), proposals };
    },
  );

  app.get(
    '/proposals/:id',
    {
      schema: {
        summary: 'One proposal with its card against the library as it is now; `?wait=N` waits up to N seconds for a decision while pending',
        tags: ['proposals'],
        params: IdParams,
        querystring: WaitQuery,
        response: { 200: ProposalAnswerSchema, ...errorResponses },
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      if (!req.query.wait) return answer(await known(id));
      const ac = new AbortController();
      // the client went away: its wait ends (a response's `close` before the answer is its connection's)
      reply.raw.once('close', () => ac.abort());
      const r = await store.getWhenDecided(id, Number(req.query.wait) * 1000, ac.signal);
      if (!r) throw new DeskError('not_found', `no proposal ${id}`);
      return answer(r);
    },
  );

  app.post(
    '/proposals/:id/save',
    {
      schema: {
        summary: 'Save the proposal into the library through the normal save; it becomes saved',
        tags: ['proposals'],
        params: IdParams,
        headers: SaveHeaders,
        body: ProposalSaveBody,
        response: { 200: ProposalAnswerSchema, ...errorResponses },
      },
      // the body is optional: none is `{}`
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req) => {
      const r = await store.save(
        req.params.id,
        {
          ...(req.body.name ? { name: req.body.name } : {}),
          ...(req.body.source !== undefined ? { source: req.body.source } : {}),
          ifMatch: precondition(req.headers['if-match']),
          ifNoneMatch: precondition(req.headers['if-none-match']),
        },
        askerOf(req),
      );
      return answer(r);
    },
  );

  app.post(
    '/proposals/:id/dismiss',
    {
      schema: {
        summary: 'Dismiss the proposal, with an optional note for the conductor',
        tags: ['proposals'],
        params: IdParams,
        body: ProposalDismissSchema,
        response: { 200: ProposalAnswerSchema, ...errorResponses },
      },
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req) => answer(await store.dismiss(req.params.id, req.body.note ?? null, askerOf(req))),
  );
};
