/**
 * The launch preview (docs/api.md, Launch preview): the runs a launch of a
 * template would start with these inputs, their prompts folded. Writes
 * nothing. Thin: the library gives the template and its validation, the
 * format layer (src/template/launch.ts) does the rest.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { DeskError } from '../../errors.js';
import { ifMatchPasses } from '../../library/disk/markers.js';
import type { Library } from '../../library/types.js';
import { LaunchPreviewBodySchema, LaunchPreviewSchema } from '../../schema/launch.js';
import { previewLaunch } from '../../template/launch.js';
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
      const d = await library.getTemplate(name);
      if (!d) throw notFound('template', name);
      if (!ifMatchPasses(ifMatch(req.headers['if-match']), d.etag)) {
        throw new DeskError('precondition_failed', `${name} changed since it was read`);
      }
      // a preview of a template that could not be saved today would promise runs no launch can start
      if (!d.valid || !d.model) {
        throw new DeskError('template_invalid_for_launch', `${name} is not valid; fix its problems before launching it`, { problems: d.problems });
      }
      const preview = previewLaunch(d.model, req.body.inputs ?? {});
      withEtag(reply, d.etag);
      return { name: d.name, etag: d.etag, ...preview };
    },
  );
};
