/**
 * Routes that compare templates and write nothing (docs/api.md):
 * the diff, the three-way rebase and the proposal card. Thin: the library
 * compares (src/library/compare.ts, src/library/records/proposal-card.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { diffTemplate, proposalCard, rebaseOntoShipped } from '../../library/index.js';
import type { Library } from '../../library/types.js';
import { CardSchema } from '../../schema/card.js';
import { TemplateDiffSchema } from '../../schema/diff.js';
import { RebaseAnswerSchema, TemplateName } from '../../schema/templates.js';
import { notFound } from '../errors.js';
import { errorResponses, TemplateParams } from '../schemas.js';

export const compareRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  app.get(
    '/templates/:name/diff',
    {
      schema: {
        summary: 'Diff the loaded bytes against the shipped version, the base, or another template',
        tags: ['templates'],
        params: TemplateParams,
        querystring: Type.Object(
          {
            against: Type.Optional(
              Type.String({ description: 'shipped (default for shipped names), base (default otherwise), a template name, or version:<commit>' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref(TemplateDiffSchema), ...errorResponses },
      },
    },
    async (req) => {
      const d = await diffTemplate(library, req.params.name, req.query.against);
      if (!d) throw notFound('template', req.params.name);
      return d;
    },
  );

  app.post(
    '/templates/:name/rebase',
    {
      schema: {
        summary: "Three-way merge of the copy onto today's shipped version; writes nothing",
        tags: ['templates'],
        params: TemplateParams,
        response: {
          200: RebaseAnswerSchema,
          ...errorResponses,
        },
      },
    },
    async (req) => {
      const r = await rebaseOntoShipped(library, req.params.name);
      if (!r) throw notFound('template', req.params.name);
      return r;
    },
  );

  app.post(
    '/templates/propose',
    {
      schema: {
        summary: 'The card of a proposed template; writes nothing, answers 200 also when invalid',
        tags: ['templates'],
        body: Type.Object(
          { name: TemplateName, purpose: Type.Optional(Type.String()), source: Type.String() },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref(CardSchema), ...errorResponses },
      },
    },
    // one card for a proposal, kept or not (src/library/records/proposal-card.ts)
    async (req) => proposalCard(library, req.body),
  );
};
