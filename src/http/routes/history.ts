/**
 * History routes (docs/api.md, History): a template's or role's versions,
 * one version's bytes, restore, and the library's recent commits. Reads come
 * from git through the library's history; a restore is an ordinary save of
 * the version's bytes (validated, atomic, announced) whose commit says
 * `restore <name> to <short>`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { DeskError } from '../../errors.js';
import { canonicalJson } from '../../library/canonical.js';
import { checkRoleName } from '../../library/role-ops.js';
import { validateKitText } from '../../library/role-validate.js';
import { checkTemplateName } from '../../library/template-ops.js';
import type { Library } from '../../library/types.js';
import {
  CommitId,
  HistoryAnswerSchema,
  HistoryQuery,
  RecentAnswerSchema,
  RestoreBody,
  RoleDiffSchema,
  RoleVersionSchema,
  TemplateVersionSchema,
  VERSION_PREFIX,
} from '../../schema/history.js';
import { RoleAnswerSchema, RoleName } from '../../schema/roles.js';
import { TemplateAnswerSchema, TemplateName } from '../../schema/templates.js';
import { lineDiff } from '../../template/diff.js';
import { ifMatch, roleAnswer, templateAnswer, withEtag } from '../answers.js';
import { notFound } from '../errors.js';
import { errorResponses, RoleParams, TemplateParams } from '../schemas.js';
import {
  historyOf,
  noVersion,
  onePage,
  pageLimit,
  roleDir,
  roleEtag,
  roleVersionState,
  shortCommit,
  showRole,
  templateEtag,
  templatePath,
  templateVersionState,
  versionOf,
} from './history-read.js';

const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'the ETag last seen; a stale one gets 412' })),
});

/** Which names a commit's paths are: `templates/<name>.yaml`, `roles/<name>/…`. Markers and the rest are not names. */
function namesOf(paths: readonly string[]): { kind: 'template' | 'role'; name: string }[] {
  const seen = new Map<string, { kind: 'template' | 'role'; name: string }>();
  for (const p of paths) {
    const t = /^templates\/([a-z0-9][a-z0-9-]{0,63})\.yaml$/.exec(p);
    const r = /^roles\/([a-z][a-z0-9_]{0,63})\//.exec(p);
    if (t) seen.set(`t:${t[1]}`, { kind: 'template', name: t[1]! });
    else if (r) seen.set(`r:${r[1]}`, { kind: 'role', name: r[1]! });
  }
  return [...seen.values()];
}

export const historyRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  app.get(
    '/templates/:name/history',
    {
      schema: {
        summary: "A template's versions, newest first, paged",
        tags: ['history'],
        params: TemplateParams,
        querystring: HistoryQuery,
        response: { 200: HistoryAnswerSchema, ...errorResponses },
      },
    },
    async (req) => {
      const { name } = req.params;
      const h = historyOf(library);
      const limit = pageLimit(req.query.limit);
      const now = await library.getTemplate(name);
      // read your writes: a save answered a moment ago is in the list
      await h.settle();
      const page = await onePage((n) => h.log(templatePath(name), { limit: n, ...(req.query.before ? { before: req.query.before } : {}) }), limit);
      // a name that loads nothing and never had a commit is not a template
      if (!now && page.items.length === 0 && !req.query.before) throw notFound('template', name);
      const shipped = now?.shipped_source ?? null;
      const sources = await h.showMany(page.items.map((e) => ({ path: templatePath(name), commit: e.commit })));
      const versions = page.items.map((e, i) => {
        const source = sources[i] ?? null;
        return versionOf(e, templateVersionState(source, shipped), source === null ? null : templateEtag(source));
      });
      return { versions, next: page.next };
    },
  );

  app.get(
    '/templates/:name/versions/:commit',
    {
      schema: {
        summary: "A template's bytes at one commit",
        tags: ['history'],
        params: Type.Object({ name: TemplateName, commit: CommitId }),
        response: { 200: TemplateVersionSchema, ...errorResponses },
      },
    },
    async (req) => {
      const { name, commit } = req.params;
      const source = await historyOf(library).show(templatePath(name), commit);
      if (source === null) throw noVersion('template', name, commit);
      return { commit, source, etag: templateEtag(source) };
    },
  );

  app.post(
    '/templates/:name/restore',
    {
      schema: {
        summary: 'Save a version again: validated like a save, committed as `restore <name> to <short>`',
        tags: ['history'],
        params: TemplateParams,
        headers: IfMatchHeaders,
        body: RestoreBody,
        response: { 200: Type.Ref(TemplateAnswerSchema), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { name } = req.params;
      const { commit } = req.body;
      checkTemplateName(name);
      const source = await historyOf(library).show(templatePath(name), commit);
      if (source === null) throw noVersion('template', name, commit);
      const d = await library.saveTemplate(name, source, {
        ifMatch: ifMatch(req.headers['if-match']),
        who: req.ip,
        card: true,
        restoredFrom: shortCommit(commit),
      });
      withEtag(reply, d.etag);
      return templateAnswer(d);
    },
  );

  app.get(
    '/roles/:name/history',
    {
      schema: {
        summary: "A role's versions, newest first, paged",
        tags: ['history'],
        params: RoleParams,
        querystring: HistoryQuery,
        response: { 200: HistoryAnswerSchema, ...errorResponses },
      },
    },
    async (req) => {
      const { name } = req.params;
      const h = historyOf(library);
      const limit = pageLimit(req.query.limit);
      const now = await library.getRole(name);
      await h.settle();
      const page = await onePage((n) => h.log(roleDir(name), { limit: n, ...(req.query.before ? { before: req.query.before } : {}) }), limit);
      if (!now && page.items.length === 0 && !req.query.before) throw notFound('role', name);
      const texts = await h.showMany(page.items.flatMap((e) => [{ path: `${roleDir(name)}/role.md`, commit: e.commit }, { path: `${roleDir(name)}/kit.json`, commit: e.commit }]));
      const versions = page.items.map((e, i) => {
        const md = texts[2 * i] ?? null;
        const files = md === null ? null : { role_md: md, kit_json: texts[2 * i + 1] ?? null };
        return versionOf(e, roleVersionState(files, now), files === null ? null : roleEtag(files));
      });
      return { versions, next: page.next };
    },
  );

  app.get(
    '/roles/:name/versions/:commit',
    {
      schema: {
        summary: "A role's files at one commit",
        tags: ['history'],
        params: Type.Object({ name: RoleName, commit: CommitId }),
        response: { 200: RoleVersionSchema, ...errorResponses },
      },
    },
    async (req) => {
      const { name, commit } = req.params;
      const files = await showRole(historyOf(library), name, commit);
      if (files === null) throw noVersion('role', name, commit);
      return { commit, ...files, etag: roleEtag(files) };
    },
  );

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
      const { name } = req.params;
      const commit = req.query.against.slice(VERSION_PREFIX.length);
      if (!/^[0-9a-f]{7,40}$/.test(commit)) throw new DeskError('bad_request', `against '${req.query.against}' does not name a commit (7 to 40 lowercase hex digits)`);
      const h = historyOf(library);
      const now = await library.getRole(name);
      if (!now) throw notFound('role', name);
      const then = await showRole(h, name, commit);
      if (then === null) throw noVersion('role', name, commit);
      // the kit as it loads, in the canonical form a save writes (src/library/canonical.ts)
      const kitNow = now.kit === null ? null : canonicalJson(now.kit);
      const label = (f: string) => [`version/${shortCommit(commit)}/${name}/${f}`, `${name}/${f}`] as const;
      const diff = (f: string, a: string, b: string) => (a === b ? '' : lineDiff(...label(f), a, b));
      return {
        against: { name, kind: 'version' as const, commit },
        identical: then.role_md === now.role_md && then.kit_json === kitNow,
        role_md: diff('role.md', then.role_md, now.role_md),
        kit_json: diff('kit.json', then.kit_json ?? '', kitNow ?? ''),
      };
    },
  );

  app.post(
    '/roles/:name/restore',
    {
      schema: {
        summary: 'Save a role version again: validated like a save, committed as `restore role <name> to <short>`',
        tags: ['history'],
        params: RoleParams,
        headers: IfMatchHeaders,
        body: RestoreBody,
        response: { 200: Type.Ref(RoleAnswerSchema), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { name } = req.params;
      const { commit } = req.body;
      checkRoleName(name);
      const files = await showRole(historyOf(library), name, commit);
      if (files === null) throw noVersion('role', name, commit);
      // a kit.json edited by hand into that commit may not parse: refused like a save, with its problems
      const kit = validateKitText(files.kit_json);
      if (kit.problems.length) throw new DeskError('invalid_role', `role ${name} at ${shortCommit(commit)} is not valid; nothing was saved`, { problems: kit.problems });
      const role = await library.saveRole(name, files.role_md, kit.kit, {
        ifMatch: ifMatch(req.headers['if-match']),
        who: req.ip,
        restoredFrom: shortCommit(commit),
      });
      withEtag(reply, role.etag);
      return roleAnswer(role);
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
      const h = historyOf(library);
      const limit = pageLimit(req.query.limit);
      await h.settle();
      const page = await onePage((n) => h.recent({ limit: n, ...(req.query.before ? { before: req.query.before } : {}) }), limit);
      return {
        commits: page.items.map((e) => ({ commit: e.commit, at: e.at, author: e.author, who: e.who, message: e.message, names: namesOf(e.paths) })),
        next: page.next,
      };
    },
  );
};
