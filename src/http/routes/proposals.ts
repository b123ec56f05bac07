/**
 * Proposals (docs/api.md, Proposals): a conductor proposes a template, it
 * waits for the operator, who saves it into the library or dismisses it.
 * Thin: the store (src/library/proposals/store.ts) keeps them, the card is the one
 * propose answers (src/library/proposals/card.ts), worked out at each read.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { DeskError } from '../../errors.js';
import { proposalCard } from '../../library/proposals/card.js';
import { summaryOf, type ProposalRecord } from '../../library/proposals/record.js';
import { openProposalStore } from '../../library/proposals/store.js';
import type { Library } from '../../library/types.js';
import type { ProposalEvent } from '../../schema/events.js';
import {
  ProposalAnswerSchema,
  ProposalCreateSchema,
  ProposalDismissSchema,
  ProposalId,
  ProposalListQuery,
  ProposalListSchema,
  ProposalSaveSchema,
  type ProposalSummary,
} from '../../schema/proposals.js';
import { precondition } from '../answers.js';
import { errorResponses } from '../schemas.js';

const IdParams = Type.Object({ id: ProposalId });

const SaveHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'the ETag of the template of that name, when one exists; a stale one gets 412' })),
  'if-none-match': Type.Optional(Type.String({ description: '`*`: insist on a new name — 412 when the name already exists' })),
});

/** A saved proposal is told under the name it was saved as, which the desk launches. */
function eventData(p: ProposalSummary): ProposalEvent {
  return { id: p.id, status: p.status, name: p.saved_as ?? p.name, etag: p.etag, note: p.note };
}

export const proposalRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  // the library's bus (src/library/events/bus.ts), which GET /events streams;
  // optional, as a stand-in library (test/docs-api.test.ts) has none
  const events = library.events as Library['events'] | undefined;
  const store = openProposalStore({
    library,
    logger: app.log.child({ component: 'proposals' }),
    onChange: (kind, p) => {
      events?.publish(kind === 'created' ? 'proposal.created' : 'proposal.decided', eventData(p));
      // the record is on disk now: its own commit (a proposal saved into a template is that save's commit too)
      library.history?.commit({ paths: [`proposals/${p.id}.json`], message: kind === 'created' ? `proposal ${p.id} for ${p.name}` : `proposal ${p.id} ${p.status}` });
    },
  });
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
