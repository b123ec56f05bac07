/**
 * Template routes (docs/api.md): list, read, save, delete. Thin:
 * schemas declared, the library called, results mapped; every refusal is a
 * DeskError the error handler answers.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Library, TemplateDetail, WriteOptions } from '../../library/types.js';
import { SaveNote, TemplateAnswerSchema, TemplateListSchema } from '../../schema/templates.js';
import { templateAnswer } from '../../library/index.js';
import { ANSWER_ETAG, noneMatch, NotModified, type Sent, sentOf } from '../answer-etag.js';
import { ifMatch, precondition, withEtag } from '../answers.js';
import { notFound } from '../errors.js';
import { DeskError } from '../../errors.js';
import { errorResponses, TemplateParams } from '../schemas.js';
import { whoOf } from '../auth.js';

const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'the ETag last seen; a stale one gets 412' })),
});

const SaveHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'the ETag last seen; a stale one gets 412' })),
  'if-none-match': Type.Optional(
    Type.String({ description: '`*`: create only — 412 when the name already exists (an operator copy, or a shipped or read-only template)' }),
  ),
});

export const templateRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  // each answer's bytes and weak ETag, made once: the library hands out the same answer while nothing it is made of changes
  const sent = new WeakMap<TemplateDetail, Sent>();
  /** `d` as the route's response schema writes it (as it writes every answer), once per answer */
  const sentFor = (d: TemplateDetail, reply: { serialize(payload: unknown): unknown }): Sent => {
    let s = sent.get(d);
    if (!s) {
      s = sentOf(reply.serialize(templateAnswer(d)) as string);
      sent.set(d, s);
    }
    return s;
  };
  app.get(
    '/templates',
    {
      schema: {
        summary: 'List the templates, sorted by name',
        tags: ['templates'],
        response: {
          200: TemplateListSchema,
          ...errorResponses,
        },
      },
    },
    async (_req, reply) => {
      // the entries as they are: the response schema writes the fields it declares. Sent as bytes: of a
      // string fastify measures every character for the length (Buffer.byteLength, a sixth of a warm list
      // of 1,000) and the socket encodes it again
      const body = reply.serialize({ templates: await library.listTemplates() }) as string;
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(Buffer.from(body, 'utf8'));
    },
  );

  app.get(
    '/templates/:name',
    {
      schema: {
        summary: 'One template with its source, problems and card',
        tags: ['templates'],
        params: TemplateParams,
        response: { 200: Type.Ref(TemplateAnswerSchema), 304: NotModified, ...errorResponses },
      },
    },
    async (req, reply) => {
      const d = await library.getTemplate(req.params.name, { card: true });
      if (!d && library.syncFiles?.divergedWhy('templates', req.params.name)) {
        throw new DeskError('not_found', `no template named '${req.params.name}' loads here; a teammate's version of it waits for a decision: GET /api/desk/sync/templates/${req.params.name}`);
      }
      if (!d) throw notFound('template', req.params.name);
      const s = sentFor(d, reply);
      withEtag(reply, d.etag).header(ANSWER_ETAG, s.tag);
      if (noneMatch(req.headers['if-none-match'], s.tag)) return reply.code(304).send(null);
      // already written by the schema's serializer: sent as it is
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(s.body);
    },
  );

  app.put(
    '/templates/:name',
    {
      schema: {
        summary: 'Save a template; validated first, nothing is written when it is not valid',
        tags: ['templates'],
        params: TemplateParams,
        headers: SaveHeaders,
        body: Type.Object({ source: Type.String(), note: Type.Optional(SaveNote) }, { additionalProperties: false }),
        response: { 200: Type.Ref(TemplateAnswerSchema), ...errorResponses },
      },
    },
    async (req, reply) => {
      // the note is the library's to check (a 422 with its own problem code) and to write into the history entry
      const opts: WriteOptions = {
        ifMatch: ifMatch(req.headers['if-match']),
        ifNoneMatch: precondition(req.headers['if-none-match']),
        who: whoOf(req),
        card: true,
        ...(req.body.note === undefined ? {} : { note: req.body.note }),
      };
      const d = await library.saveTemplate(req.params.name, req.body.source, opts);
      withEtag(reply, d.etag);
      // the library keeps this answer for the next GET of the name: written once for both
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(sentFor(d, reply).body);
    },
  );

  app.delete(
    '/templates/:name',
    {
      schema: {
        summary: 'Delete an operator-only (custom) template; a shipped name is refused with not_custom (reset it instead)',
        tags: ['templates'],
        params: TemplateParams,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'deleted' }), ...errorResponses },
      },
    },
    async (req, reply) => {
      await library.deleteTemplate(req.params.name, { ifMatch: ifMatch(req.headers['if-match']), who: whoOf(req) });
      return reply.code(204).send(null);
    },
  );
};
