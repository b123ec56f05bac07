/**
 * GET /catalogue (docs/api.md, Catalogue): what the server validates a save
 * against, as JSON, so the settings page's copy of the validator gives the
 * same problems while the operator types. The library's own catalogue, the
 * one saves and proposals are checked against, not a second reading.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Library } from '../../library/types.js';
import { CatalogueAnswerSchema, type CatalogueAnswer } from '../../schema/catalogue.js';
import type { Catalogue } from '../../template/model.js';
import { errorResponses } from '../schemas.js';

export const catalogueRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  app.get(
    '/catalogue',
    {
      schema: {
        summary: 'The role, template and kit names templates are validated against',
        tags: ['meta'],
        response: { 200: CatalogueAnswerSchema, ...errorResponses },
      },
    },
    async (_req, reply) => {
      // names change with any write; the page refetches on the events stream's hints
      reply.header('cache-control', 'no-store');
      return catalogueAnswer(await library.catalogue());
    },
  );
};

export function catalogueAnswer(c: Catalogue): CatalogueAnswer {
  const kits: Record<string, string[]> = {};
  // the library's kits are a Map (src/library/catalogue.ts kitsOf); the type only promises `get`
  if (c.kits instanceof Map) for (const [role, tools] of c.kits as ReadonlyMap<string, readonly string[]>) kits[role] = [...tools];
  return { roles: [...c.roles].sort(), templates: [...c.templates].sort(), kits };
}
