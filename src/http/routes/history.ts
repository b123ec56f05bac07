/**
 * History routes (docs/api.md, History): a template's or role's versions,
 * one version's bytes, restore, a role's diff against a version, and the
 * library's recent commits. Thin: the library reads them from git
 * (src/library/history/versions.ts, recent.ts); a restore is an ordinary
 * save of the version's bytes whose commit says `restore <name> to <short>`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { historyOf, recentPage, roleDiff, roleVersions, templateAnswer, templateVersions } from '../../library/index.js';
import type { Library } from '../../library/types.js';
import { HistoryQuery, RecentAnswerSchema, RoleDiffSchema, RoleVersionSchema, TemplateVersionSchema, VERSION_PREFIX } from '../../schema/history.js';
import { RoleAnswerSchema, RoleName } from '../../schema/roles.js';
import { TemplateAnswerSchema, TemplateName } from '../../schema/templates.js';
import { roleAnswer } from '../answers.js';
import { notFound } from '../errors.js';
import { errorResponses, RoleParams } from '../schemas.js';
import { pageLimit, pageStart, versionRoutes } from './history-versions.js';

export const historyRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  versionRoutes(app, library, {
    history: templateVersions,
    name: TemplateName,
    versionRoute: { summary: "A template's bytes at one commit", schema: TemplateVersionSchema },
    fields: (source) => ({ source }),
    restoreRoute: { summary: 'Save a version again: validated like a save, committed as `restore <name> to <short>`', schema: TemplateAnswerSchema },
    restoreOptions: { card: true },
    answer: templateAnswer,
    etagOf: (d) => d.etag,
  });
  versionRoutes(app, library, {
    history: roleVersions,
    name: RoleName,
    versionRoute: { summary: "A role's files at one commit", schema: RoleVersionSchema },
    fields: (f) => f,
    restoreRoute: { summary: 'Save a role version again: validated like a save, committed as `restore role <name> to <short>`', schema: RoleAnswerSchema },
    answer: roleAnswer,
    etagOf: (role) => role.etag,
  });

  app.get(
    '/roles/:name/diff',
    {
      schema: {
        summary: 'Diff the role as it loads against one of its versions',
        tags: ['history'],
        params: RoleParams,
        querystring: Type.Object(
          { against: Type.String({ pattern: '^version:', description: 'version:<commit>' }) },
          { additionalProperties: false },
        ),
        response: { 200: RoleDiffSchema, ...errorResponses },
      },
    },
    async (req) => {
      const d = await roleDiff(library, req.params.name, req.query.against.slice(VERSION_PREFIX.length));
      if (!d) throw notFound('role', req.params.name);
      return d;
    },
  );

  app.get(
    '/history',
    {
      schema: {
        summary: "The library's recent commits across names, newest first, paged",
        tags: ['history'],
        querystring: HistoryQuery,
        response: { 200: RecentAnswerSchema, ...errorResponses },
      },
    },
    async (req) => {
      // without history every history route is 503, whatever the query says
      historyOf(library);
      return recentPage(library, { limit: pageLimit(req.query.limit), ...pageStart(req.query) });
    },
  );
};
