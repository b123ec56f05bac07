/**
 * Proposals (docs/api.md, Proposals): a conductor proposes a template, it
 * waits for the operator, who saves it into the library or dismisses it.
 * Thin: the store (src/library/records/proposal.ts) keeps and decides them,
 * and commits and announces each record it writes; the card is the one
 * propose answers (src/library/records/proposal-card.ts), worked out at each
 * read. Create, list, get and dismiss are the routes every record kind
 * answers alike (records.ts); the save is a proposal's own.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { proposalAnswer, type ProposalRecord, type ProposalStore } from '../../library/index.js';
import type { Library } from '../../library/types.js';
import {
  ProposalAnswerSchema,
  ProposalCreateSchema,
  ProposalId,
  ProposalListSchema,
  ProposalSaveSchema,
} from '../../schema/proposals.js';
import { precondition } from '../answers.js';
import { errorResponses } from '../schemas.js';
import { askerOf } from './asker.js';
import { recordRoutes } from './records.js';

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

  const routes = recordRoutes(app, {
    store,
    path: '/proposals',
    tag: 'proposals',
    noun: 'proposal',
    id: ProposalId,
    listKey: 'proposals',
    create: ProposalCreateSchema,
    answer: ProposalAnswerSchema,
    list: ProposalListSchema,
    summaries: {
      create: 'Keep a proposed template for the operator to decide; an invalid one is kept and says so',
      list: 'The proposals, newest first, without their cards; `pending` counts those waiting',
      get: 'One proposal with its card against the library as it is now; `?wait=N` waits up to N seconds for a decision while pending',
      dismiss: 'Dismiss the proposal, with an optional note for the conductor',
    },
    send: async (reply, r: ProposalRecord, code = 200) => reply.code(code).send(await proposalAnswer(library, r)),
  });
  routes.create();
  routes.list();
  routes.get();

  app.post(
    '/proposals/:id/save',
    {
      schema: {
        summary: 'Save the proposal into the library through the normal save; it becomes saved',
        tags: ['proposals'],
        params: Type.Object({ id: ProposalId }),
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
      return proposalAnswer(library, r);
    },
  );

  routes.dismiss();
};
