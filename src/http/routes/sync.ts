/**
 * Sync with the team's remote (docs/api.md, Sync): its status, a sync now,
 * and the diverged template's actions — its other versions, the rebase of
 * this desk's copy onto the remote's version, and keep mine. A save of the
 * rebased text through PUT settles the name too (sync/files.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { DeskError } from '../../errors.js';
import type { ProblemCode } from '../../template/problems.js';
import { ifMatchPasses, type Library, rebaseAnswer } from '../../library/index.js';
import { DivergedRoleSchema, DivergedTemplateSchema, SyncRunningSchema, SyncStatusSchema } from '../../schema/sync.js';
import { RebaseAnswerSchema } from '../../schema/templates.js';
import { ifMatch } from '../answers.js';
import { notFound } from '../errors.js';
import { errorResponses, RoleParams, TemplateParams } from '../schemas.js';
import { whoOf } from '../auth.js';

const IfMatchHeaders = Type.Object({ 'if-match': Type.Optional(Type.String({ description: 'the ETag last seen; a stale one gets 412' })) });

/** How long POST /sync waits for its round before answering 202, unless the sync options say (SyncOptions.waitMs). */
const SYNC_WAIT_MS = 30_000;

export const syncRoutes: FastifyPluginAsyncTypebox<{ library: Library; sync: Library['sync'] }> = async (app, { library, sync }) => {
  const need = (): NonNullable<Library['sync']> => {
    if (!sync) throw new DeskError('no_remote', 'the service runs without a remote; start it with DESK_LIBRARY_REMOTE to sync');
    return sync;
  };
  const status = { 200: SyncStatusSchema, ...errorResponses };

  // Without a remote the status says so (remote: null) rather than refusing: the page asks on
  // every load to decide whether to show its indicator, and a 409 there is no client mistake.
  const none = { remote: null, ahead: 0, behind: 0, last_sync: null, last_error: null, diverged: [], diverged_roles: [], diverged_detail: [], ignored: [] };
  app.get('/sync', { schema: { summary: 'Where the library stands against its remote', tags: ['sync'], response: status } }, async () =>
    sync ? sync.status() : none,
  );

  app.post(
    '/sync',
    {
      schema: {
        summary: "Fetch the remote's changes, merge them and push; answers the status after, or 202 with the round when it outlasts the wait",
        tags: ['sync'],
        response: { ...status, 202: SyncRunningSchema },
      },
    },
    async (_req, reply) => {
      const s = need();
      const done = s.sync();
      // a round of thousands of names outlasts any client's patience: past the wait it goes on, and the answer says where it stands
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<null>((r) => {
        timer = setTimeout(() => r(null), s.waitMs ?? SYNC_WAIT_MS);
      });
      const out = await Promise.race([done, waited]);
      clearTimeout(timer);
      const round = s.current;
      if (out === null && round) return reply.code(202).send({ round });
      return out ?? done;
    },
  );

  /**
   * A diverged template: its entry (null when this desk has no copy and a
   * teammate's new version waits for a decision) and where its conflict came
   * from; state_conflict when it is not diverged.
   */
  const diverged = async (name: string) => {
    const s = need();
    const entry = await library.getTemplate(name);
    const d = await s.divergedTemplate(name);
    if (!entry && !d) throw notFound('template', name);
    if (!d) throw new DeskError('state_conflict', `'${name}' is ${entry!.state}, not diverged`);
    return { s, entry, d };
  };

  app.get(
    '/sync/templates/:name',
    {
      schema: {
        summary: "A diverged template's other versions: the remote's and the merge base",
        tags: ['sync'],
        params: TemplateParams,
        response: { 200: DivergedTemplateSchema, ...errorResponses },
      },
    },
    async (req) => {
      const { d } = await diverged(req.params.name);
      const { form: _form, size: _size, ...rest } = d;
      return { name: req.params.name, ...rest };
    },
  );

  app.post(
    '/sync/templates/:name/rebase',
    {
      schema: {
        summary: "Three-way merge of this desk's copy onto the remote's version; writes nothing",
        tags: ['sync'],
        params: TemplateParams,
        response: { 200: RebaseAnswerSchema, ...errorResponses },
      },
    },
    async (req) => {
      const { name } = req.params;
      const { entry, d } = await diverged(name);
      // nothing here to rebase: open the remote's text in the editor, fix and save it, or keep (none)
      if (!entry) throw notFound('template', name);
      // the remote removed it: rebasing onto nothing is the remote's side, an empty text
      return rebaseAnswer(library, name, entry.source, d.base_source ?? '', d.remote_source ?? '', 'remote');
    },
  );

  /** Keep mine or take theirs, for a template: If-Match against what loads here; answers the sync status. */
  const decideTemplate = async (name: string, header: string | string[] | undefined, who: string, theirs: boolean) => {
    const { s, entry, d } = await diverged(name);
    if (!ifMatchPasses(ifMatch(header), entry?.etag ?? null)) throw new DeskError('precondition_failed', `${name} changed since it was read`);
    // a version that does not validate here, or that is over the cap, is not taken: rebase it, or keep this desk's copy
    if (theirs && d.reason === 'invalid') throw new DeskError('invalid_template', `the remote's version of ${name} is not valid here; rebase it or keep this desk's copy`, { problems: d.problems.map((x) => ({ code: x.code as ProblemCode, severity: 'error' as const, message: x.message, path: '' })) });
    if (theirs && d.reason === 'too_large') throw new DeskError('state_conflict', `the remote's version of ${name} is over the size cap; keep this desk's copy, or shrink it on the remote`);
    await (theirs ? s.take('templates', name, who) : s.keep('templates', name, who));
    return s.status();
  };

  /** The same for a role. */
  const decideRole = async (name: string, header: string | string[] | undefined, who: string, theirs: boolean) => {
    const s = need();
    const role = await library.getRole(name);
    const d = await s.divergedRole(name);
    if (!d) {
      if (!role) throw notFound('role', name);
      throw new DeskError('state_conflict', `role '${name}' is ${role.state}, not diverged`);
    }
    if (!ifMatchPasses(ifMatch(header), role?.etag ?? null)) throw new DeskError('precondition_failed', `role ${name} changed since it was read`);
    if (theirs && (d.reason === 'invalid' || d.reason === 'too_large')) throw new DeskError('state_conflict', `the remote's version of role ${name} is ${d.reason === 'invalid' ? 'not valid' : 'over the size cap'} here; keep this desk's copy`);
    await (theirs ? s.take('roles', name, who) : s.keep('roles', name, who));
    return s.status();
  };

  app.post(
    '/sync/templates/:name/keep',
    {
      schema: {
        summary: "Keep this desk's copy of a diverged template: it is published as an ordinary change; answers the sync status",
        tags: ['sync'],
        params: TemplateParams,
        headers: IfMatchHeaders,
        response: status,
      },
    },
    async (req) => decideTemplate(req.params.name, req.headers['if-match'], whoOf(req), false),
  );

  app.post(
    '/sync/templates/:name/take',
    {
      schema: {
        summary: "Take the remote's version of a diverged template in place of this desk's copy; answers the sync status",
        tags: ['sync'],
        params: TemplateParams,
        headers: IfMatchHeaders,
        response: status,
      },
    },
    async (req) => decideTemplate(req.params.name, req.headers['if-match'], whoOf(req), true),
  );

  app.get(
    '/sync/roles/:name',
    {
      schema: {
        summary: "A diverged role's other versions: the remote's and the merge base",
        tags: ['sync'],
        params: RoleParams,
        response: { 200: DivergedRoleSchema, ...errorResponses },
      },
    },
    async (req) => {
      const s = need();
      const d = await s.divergedRole(req.params.name);
      if (!d) {
        const role = await library.getRole(req.params.name);
        if (!role) throw notFound('role', req.params.name);
        throw new DeskError('state_conflict', `role '${req.params.name}' is ${role.state}, not diverged`);
      }
      const { form: _form, size: _size, ...rest } = d;
      return { name: req.params.name, ...rest };
    },
  );

  app.post(
    '/sync/roles/:name/keep',
    {
      schema: {
        summary: "Keep this desk's copy of a diverged role: it is published as an ordinary change; answers the sync status",
        tags: ['sync'],
        params: RoleParams,
        headers: IfMatchHeaders,
        response: status,
      },
    },
    async (req) => decideRole(req.params.name, req.headers['if-match'], whoOf(req), false),
  );

  app.post(
    '/sync/roles/:name/take',
    {
      schema: {
        summary: "Take the remote's version of a diverged role in place of this desk's copy; answers the sync status",
        tags: ['sync'],
        params: RoleParams,
        headers: IfMatchHeaders,
        response: status,
      },
    },
    async (req) => decideRole(req.params.name, req.headers['if-match'], whoOf(req), true),
  );
};
