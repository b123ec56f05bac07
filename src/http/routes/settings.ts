/**
 * The settings page's actions on a template (docs/api.md): reset to
 * the shipped bytes, and acknowledge a shipped change while keeping the copy.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Library } from '../../library/types.js';
import { TemplateAnswerSchema, TemplateName } from '../../schema/templates.js';
import { templateAnswer } from '../../library/index.js';
import { ifMatch, withEtag } from '../answers.js';
import { errorResponses } from '../schemas.js';
import { whoOf } from '../auth.js';

const NameBody = Type.Object({ name: TemplateName }, { additionalProperties: false });
const IfMatchHeaders = Type.Object({ 'if-match': Type.Optional(Type.String()) });

export const settingsRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  app.post(
    '/settings/template-reset',
    {
      schema: {
        summary: 'Remove the copy and its marker so the shipped bytes load',
        tags: ['settings'],
        headers: IfMatchHeaders,
        body: NameBody,
        response: { 200: Type.Ref(TemplateAnswerSchema), ...errorResponses },
      },
    },
    async (req, reply) => {
      const entry = await library.resetTemplate(req.body.name, {
        ifMatch: ifMatch(req.headers['if-match']),
        who: whoOf(req),
        card: true,
      });
      withEtag(reply, entry.etag);
      return templateAnswer(entry);
    },
  );

  app.post(
    '/settings/template-acknowledge',
    {
      schema: {
        summary: "Keep the copy and record that today's shipped version has been seen",
        tags: ['settings'],
        headers: IfMatchHeaders,
        body: NameBody,
        response: { 200: Type.Ref(TemplateAnswerSchema), ...errorResponses },
      },
    },
    async (req, reply) => {
      const entry = await library.acknowledgeTemplate(req.body.name, {
        ifMatch: ifMatch(req.headers['if-match']),
        who: whoOf(req),
        card: true,
      });
      withEtag(reply, entry.etag);
      return templateAnswer(entry);
    },
  );
};
