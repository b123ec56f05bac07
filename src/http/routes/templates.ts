/**
 * Template routes (library-and-api.md §4): list, read, save, delete. Thin:
 * schemas declared, the library called, results mapped; every refusal is a
 * DeskError the error handler answers.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Library } from '../../library/types.js';
import { ifMatch, summary, templateAnswer, withEtag } from '../answers.js';
import { notFound } from '../errors.js';
import { errorResponses, TemplateAnswerSchema, TemplateParams, TemplateSummarySchema } from '../schemas.js';

const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'the ETag last seen; a stale one gets 412' })),
});

export const templateRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  app.get(
    '/templates',
    {
      schema: {
        summary: 'List the templates, sorted by name',
        tags: ['templates'],
        response: {
          200: Type.Object({ templates: Type.Array(Type.Ref(TemplateSummarySchema)) }),
          ...errorResponses,
        },
      },
    },
    async () => {
      const list = await library.listTemplates();
      const templates = list.map(summary).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return { templates };
    },
  );

  app.get(
    '/templates/:name',
    {
      schema: {
        summary: 'One template with its source, problems and card',
        tags: ['templates'],
        params: TemplateParams,
        response: { 200: Type.Ref(TemplateAnswerSchema), ...errorResponses },
      },
    },
    async (req, reply) => {
      const entry = await library.getTemplate(req.params.name);
      if (!entry) throw notFound('template', req.params.name);
      withEtag(reply, entry.etag);
      return templateAnswer(library, entry);
    },
  );

  app.put(
    '/templates/:name',
    {
      schema: {
        summary: 'Save a template; validated first, nothing is written when it is not valid',
        tags: ['templates'],
        params: TemplateParams,
        headers: IfMatchHeaders,
        body: Type.Object({ source: Type.String() }, { additionalProperties: false }),
        response: { 200: Type.Ref(TemplateAnswerSchema), ...errorResponses },
      },
    },
    async (req, reply) => {
      const entry = await library.saveTemplate(req.params.name, req.body.source, {
        ifMatch: ifMatch(req.headers['if-match']),
        who: req.ip,
      });
      withEtag(reply, entry.etag);
      return templateAnswer(library, entry);
    },
  );

  app.delete(
    '/templates/:name',
    {
      schema: {
        summary: "Delete an operator-only (custom) template; a shipped name is reset instead",
        tags: ['templates'],
        params: TemplateParams,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'deleted' }), ...errorResponses },
      },
    },
    async (req, reply) => {
      await library.deleteTemplate(req.params.name, { ifMatch: ifMatch(req.headers['if-match']), who: req.ip });
      return reply.code(204).send(null);
    },
  );
};
