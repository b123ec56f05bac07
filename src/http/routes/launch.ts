/**
 * The launch preview (docs/api.md, Launch preview): the runs a launch of a
 * template would start with these inputs, their prompts folded. Writes
 * nothing. Thin: the library checks the version and the template
 * (src/library/templates/launch-preview.ts), the format layer
 * (src/template/launch.ts) does the rest.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { launchPreview } from '../../library/index.js';
import type { Library } from '../../library/types.js';
import { LaunchPreviewBodySchema, LaunchPreviewSchema } from '../../schema/launch.js';
import { ifMatch, withEtag } from '../answers.js';
import { notFound } from '../errors.js';
import { errorResponses, TemplateParams } from '../schemas.js';

export const launchRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  app.post(
    '/templates/:name/launch-preview',
    {
      schema: {
        summary: 'Preview a launch: the inputs checked, and the runs it would start with their prompts folded; writes nothing',
        tags: ['templates'],
        params: TemplateParams,
        headers: Type.Object({
          'if-match': Type.Optional(Type.String({ description: 'the ETag last seen: preview that version or get 412' })),
        }),
        body: LaunchPreviewBodySchema,
        response: { 200: LaunchPreviewSchema, ...errorResponses },
      },
    },
    async (req, reply) => {
      const { name } = req.params;
      const preview = await launchPreview(library, name, req.body.inputs ?? {}, ifMatch(req.headers['if-match']));
      if (!preview) throw notFound('template', name);
      withEtag(reply, preview.etag);
      return preview;
    },
  );
};
