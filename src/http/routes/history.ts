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
import { canonicalJson } from '../../library/roles/canonical.js';
import { checkRoleName, checkTemplateName } from '../../library/writes.js';
import { validateKitText } from '../../library/roles/validate.js';
import type { Library, RoleEntry, TemplateDetail } from '../../library/types.js';
import { HistoryQuery, RecentAnswerSchema, RoleDiffSchema, RoleVersionSchema, TemplateVersionSchema, VERSION_PREFIX } from '../../schema/history.js';
import { RoleAnswerSchema, RoleName } from '../../schema/roles.js';
import { TemplateAnswerSchema, TemplateName } from '../../schema/templates.js';
import { lineDiff } from '../../template/diff.js';
import { roleAnswer, templateAnswer } from '../answers.js';
import { notFound } from '../errors.js';
import { errorResponses, RoleParams } from '../schemas.js';
import {
  historyOf,
  noVersion,
  onePage,
  pageLimit,
  type RoleFiles,
  roleDir,
  roleEtag,
  roleVersionState,
  shortCommit,
  templateEtag,
  templatePath,
  templateVersionState,
} from './history-read.js';
import { showVersion, type VersionKind, versionRoutes } from './history-versions.js';

const templates: VersionKind<string, TemplateDetail> = {
  kind: 'template',
  name: TemplateName,
  logPath: templatePath,
  files: (name) => [templatePath(name)],
  version: ([source]) => source ?? null,
  now: (library, name) => library.getTemplate(name),
  state: (source, now) => templateVersionState(source, now?.shipped_source ?? null),
  etag: templateEtag,
  versionRoute: { summary: "A template's bytes at one commit", schema: TemplateVersionSchema },
  fields: (source) => ({ source }),
  restoreRoute: { summary: 'Save a version again: validated like a save, committed as `restore <name> to <short>`', schema: TemplateAnswerSchema },
  checkName: checkTemplateName,
  async restore(library, name, source, _commit, w) {
    const d = await library.saveTemplate(name, source, { ...w, card: true });
    return { etag: d.etag, answer: templateAnswer(d) };
  },
};

const roles: VersionKind<RoleFiles, RoleEntry> = {
  kind: 'role',
  name: RoleName,
  logPath: roleDir,
  files: (name) => [`${roleDir(name)}/role.md`, `${roleDir(name)}/kit.json`],
  version: ([md, kit]) => (md == null ? null : { role_md: md, kit_json: kit ?? null }),
  now: (library, name) => library.getRole(name),
  state: roleVersionState,
  etag: roleEtag,
  versionRoute: { summary: "A role's files at one commit", schema: RoleVersionSchema },
  fields: (f) => f,
  restoreRoute: { summary: 'Save a role version again: validated like a save, committed as `restore role <name> to <short>`', schema: RoleAnswerSchema },
  checkName: checkRoleName,
  async restore(library, name, f, commit, w) {
    // a kit.json edited by hand into that commit may not parse: refused like a save, with its problems
    const kit = validateKitText(f.kit_json);
    if (kit.problems.length) throw new DeskError('invalid_role', `role ${name} at ${shortCommit(commit)} is not valid; nothing was saved`, { problems: kit.problems });
    const role = await library.saveRole(name, f.role_md, kit.kit, w);
    return { etag: role.etag, answer: roleAnswer(role) };
  },
};

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
  versionRoutes(app, library, templates);
  versionRoutes(app, library, roles);

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
      const then = await showVersion(h, roles, name, commit);
      if (then === null) throw noVersion('role', name, commit);
      // the kit as it loads, in the canonical form a save writes (src/library/roles/canonical.ts)
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
