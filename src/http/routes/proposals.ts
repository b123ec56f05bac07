/**
 * Proposals (docs/api.md, Proposals): a conductor proposes a template, it
 * waits for the operator, who saves it into the library or dismisses it.
 * Thin: the store (src/library/proposals/store.ts) keeps and decides them,
 * and commits and announces each record it writes; the card is the one
 * propose answers (src/library/proposals/card.ts), worked out at each read.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { DeskError } from '../../errors.js';
import { proposalCard } from '../../library/proposals/card.js';
import { summaryOf, type ProposalRecord } from '../../library/proposals/record.js';
import { openProposalStore } from '../../library/proposals/store.js';
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
import { precondition } from '../answers.js';
import { errorResponses } from '../schemas.js';

const IdParams = Type.Object({ id: ProposalId });

const SaveHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'the ETag of the template of that name, when one exists; a stale one gets 412' })),
  'if-none-match': Type.Optional(Type.String({ description: '`*`: insist on a new name — 412 when the name already exists' })),
});

export const proposalRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  const store = openProposalStore({ library, logger: app.log.child({ component: 'proposals' }) });
  // read proposals/ and finish an interrupted save at the start, before any template changes
  app.addHook('onReady', () => store.ready());
  app.addHook('onClose', async () => store.close());

  const answer = async (r: ProposalRecord) => {
    const card = await proposalCard(library, { name: r.name, purpose: r.purpose, source: r.source });
    return { ...summaryOf(r), source: r.source, valid: card.valid, problems: card.problems, card };
  };
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
      const r = await store.create(req.body);
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
      return { pending: await store.pending(), proposals };
    },
  );

  app.get(
    '/proposals/:id',
    {
      schema: {
        summary: 'One proposal with its card against the library as it is now',
        tags: ['proposals'],
        params: IdParams,
        response: { 200: ProposalAnswerSchema, ...errorResponses },
      },
    },
    async (req) => answer(await known(req.params.id)),
  );

  app.post(
    '/proposals/:id/save',
    {
      schema: {
        summary: 'Save the proposal into the library through the normal save; it becomes saved',
        tags: ['proposals'],
        params: IdParams,
        headers: SaveHeaders,
        body: ProposalSaveSchema,
        response: { 200: ProposalAnswerSchema, ...errorResponses },
      },
      // the body is optional: none is `{}`
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req) => {
      const r = await store.save(req.params.id, {
        ...(req.body.name ? { name: req.body.name } : {}),
        ifMatch: precondition(req.headers['if-match']),
        ifNoneMatch: precondition(req.headers['if-none-match']),
        who: req.ip,
      });
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
    async (req) => answer(await store.dismiss(req.params.id, req.body.note ?? null)),
  );
};
