/**
 * Template routes (docs/api.md): list, read, save, delete. Thin:
 * schemas declared, the library called, results mapped; every refusal is a
 * DeskError the error handler answers.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Library, TemplateEntry } from '../../library/types.js';
import { ifMatch, sendTemplateAnswer, summary, viewOf, warmCard, withEtag } from '../answers.js';
import { notFound } from '../errors.js';
import { errorResponses, TemplateAnswerSchema, TemplateParams, TemplateSummarySchema } from '../schemas.js';

const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'the ETag last seen; a stale one gets 412' })),
});

export const templateRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  // The last list's bytes, serialised by the response schema. The library answers an
  // unchanged template with the same entry object, so the same entries in the same
  // order are the same body; anything changed is serialised again (docs/performance.md).
  let lastList: { entries: TemplateEntry[]; body: Buffer } | null = null;

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
    async (_req, reply) => {
      const list = await library.listTemplates();
      if (!lastList || !sameEntries(lastList.entries, list)) {
        const templates = list.map(summary).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        lastList = { entries: list, body: Buffer.from(reply.serialize({ templates }) as string) };
      }
      // already serialised: fastify sends a Buffer as it is
      return reply.type('application/json; charset=utf-8').send(lastList.body as never);
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
      // one view: the template, its base and the catalogue from one proof of the folders
      const view = await viewOf(library);
      const entry = await view.getTemplate(req.params.name);
      if (!entry) throw notFound('template', req.params.name);
      withEtag(reply, entry.etag);
      return sendTemplateAnswer(reply, view, entry);
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
        // the answer's card is built while the disk flushes; kept per catalogue, bytes and base (answers.ts)
        whileWriting: (saved, catalogue) => void warmCard(library, saved, catalogue).catch(() => {}),
      });
      withEtag(reply, entry.etag);
      return sendTemplateAnswer(reply, await viewOf(library), entry);
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

function sameEntries(a: readonly TemplateEntry[], b: readonly TemplateEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
