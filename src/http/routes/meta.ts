/** Liveness and the template JSON Schema (docs/api.md, Service). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Library } from '../../library/types.js';
import { templateJsonSchema } from '../../template/schema.js';
import { errorResponses } from '../schemas.js';

export const metaRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  app.get(
    '/health',
    {
      schema: {
        summary: 'Liveness: counts of what the library holds',
        tags: ['meta'],
        response: {
          200: Type.Object({
            ok: Type.Boolean(),
            templates: Type.Integer({ minimum: 0 }),
            roles: Type.Integer({ minimum: 0 }),
            library_root: Type.Union([Type.String(), Type.Null()], { description: "the operator's folder, or null" }),
          }),
          ...errorResponses,
        },
      },
    },
    async () => {
      const [templates, roles] = await Promise.all([library.listTemplates(), library.listRoles()]);
      return { ok: true, templates: templates.length, roles: roles.length, library_root: library.root };
    },
  );

  // Generated once: the schema depends only on the catalogue modules.
  let schema: unknown;
  app.get(
    '/schema/template.json',
    {
      schema: {
        summary: 'JSON Schema of the template file, for yaml-language-server',
        tags: ['meta'],
        response: { 200: Type.Unknown({ description: 'a JSON Schema document' }), ...errorResponses },
      },
    },
    async (_req, reply) => {
      schema ??= templateJsonSchema();
      return reply.type('application/schema+json').send(JSON.stringify(schema));
    },
  );
};
