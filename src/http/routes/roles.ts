/**
 * Role routes (docs/api.md): list, read, one POST that saves or
 * resets, as the settings page sends them, and DELETE for a custom role.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { DeskError } from '../../errors.js';
import type { Library, RoleEntry, WriteOptions } from '../../library/types.js';
import { KitSchema, RoleAnswerSchema, RoleListSchema, RoleName, RoleSaveNote } from '../../schema/roles.js';
import { ifMatch, roleAnswer, roleSummary, withEtag } from '../answers.js';
import { notFound } from '../errors.js';
import { errorResponses, RoleParams } from '../schemas.js';
import { whoOf } from '../auth.js';

/**
 * One object rather than a union: AJV's errors for a failed `anyOf` name
 * every branch, while this names the one field that is wrong.
 */
const RoleBody = Type.Object(
  {
    name: RoleName,
    role_md: Type.Optional(Type.String({ description: 'save: the role text' })),
    kit: Type.Optional(Type.Union([KitSchema, Type.Null()], { description: 'save: the kit; absent or null for none' })),
    reset: Type.Optional(Type.Literal(true, { description: "reset: remove the role's folder so the built-in loads" })),
    note: Type.Optional(RoleSaveNote),
  },
  { additionalProperties: false, description: '{name, role_md, kit?} saves; {name, reset: true} resets' },
);

export const roleRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  app.get(
    '/roles',
    {
      schema: {
        summary: 'List the roles with their states, sorted by name',
        tags: ['roles'],
        response: { 200: RoleListSchema, ...errorResponses },
      },
    },
    async () => {
      const roles = (await library.listRoles()).map(roleSummary);
      roles.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return { roles };
    },
  );

  app.get(
    '/roles/:name',
    {
      schema: {
        summary: 'One role: its text, kit and the built-in version',
        tags: ['roles'],
        params: RoleParams,
        response: { 200: Type.Ref(RoleAnswerSchema), ...errorResponses },
      },
    },
    async (req, reply) => {
      const role = await library.getRole(req.params.name);
      if (!role) throw notFound('role', req.params.name);
      withEtag(reply, role.etag);
      return roleAnswer(role);
    },
  );

  app.post(
    '/role',
    {
      schema: {
        summary: 'Save a role ({name, role_md, kit?}) or reset it ({name, reset: true})',
        tags: ['roles'],
        headers: Type.Object({ 'if-match': Type.Optional(Type.String()) }),
        body: RoleBody,
        response: { 200: Type.Ref(RoleAnswerSchema), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { name, role_md, kit, reset, note } = req.body;
      const opts = { ifMatch: ifMatch(req.headers['if-match']), who: whoOf(req) };
      let role: RoleEntry;
      if (reset) {
        if (role_md !== undefined || kit !== undefined || note !== undefined) {
          throw new DeskError('bad_request', 'body: a reset takes only name and reset');
        }
        role = await library.resetRole(name, opts);
      } else {
        if (role_md === undefined) throw new DeskError('bad_request', "body lacks required key 'role_md'");
        const saveOpts: WriteOptions = { ...opts, ...(note === undefined ? {} : { note }) };
        role = await library.saveRole(name, role_md, kit ?? null, saveOpts);
      }
      withEtag(reply, role.etag);
      return roleAnswer(role);
    },
  );

  app.delete(
    '/roles/:name',
    {
      schema: {
        summary: 'Delete a custom role; a built-in role is refused with not_custom (reset it instead)',
        tags: ['roles'],
        params: RoleParams,
        headers: Type.Object({ 'if-match': Type.Optional(Type.String({ description: 'the ETag last seen; a stale one gets 412' })) }),
        response: { 204: Type.Null({ description: 'deleted' }), ...errorResponses },
      },
    },
    async (req, reply) => {
      await library.deleteRole(req.params.name, { ifMatch: ifMatch(req.headers['if-match']), who: whoOf(req) });
      return reply.code(204).send(null);
    },
  );
};
