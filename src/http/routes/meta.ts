/** Liveness, the library's status and the template JSON Schema (docs/api.md, Service). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Library } from '../../library/types.js';
import { packageVersion } from '../../paths.js';
import { templateJsonSchema } from '../../template/schema.js';
import { errorResponses } from '../schemas.js';

/** The package's version, read once: liveness answers it without any I/O. */

export const metaRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  // Liveness for the container's HEALTHCHECK and monitors: constant time, it
  // reads nothing. Listing (and validating) the library is /status's job.
  app.get(
    '/health',
    {
      schema: {
        summary: 'Liveness: the service answers; reads nothing',
        tags: ['meta'],
        response: {
          200: Type.Object({ ok: Type.Literal(true), version: Type.String({ description: "the service's package version" }) }),
          ...errorResponses,
        },
      },
    },
    async () => ({ ok: true as const, version: packageVersion }),
  );

  app.get(
    '/status',
    {
      schema: {
        summary: 'Counts of what the library holds, and its folder; lists the library',
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
  let schema: Record<string, unknown> | undefined;
  app.get(
    '/schema/template.json',
    {
      schema: {
        summary: 'JSON Schema of the template file, for yaml-language-server',
        tags: ['meta'],
        response: { 200: Type.Unknown({ description: 'a JSON Schema document' }), ...errorResponses },
      },
    },
    async (req, reply) => {
      schema ??= templateJsonSchema();
      // $id names the service as this client reached it (the guard has checked Host is one of its names), not the default port
      const $id = `${req.protocol}://${req.host}${req.routeOptions.url}`;
      return reply.type('application/schema+json').send(JSON.stringify({ ...schema, $id }));
    },
  );
};
