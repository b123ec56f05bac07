/**
 * Who the desk takes the caller for (docs/api.md, GET /me; docs/security.md,
 * Users and roles). Node-free: the page reads the same type.
 */
import { type Static, Type } from '@sinclair/typebox';

/** From the least to the most; each may do what the one before may. */
export const UserRoleSchema = Type.Union([Type.Literal('viewer'), Type.Literal('conductor'), Type.Literal('editor')], {
  description: 'viewer: every read; conductor: also proposals and launch drafts; editor: everything an operator does',
});
export type UserRoleName = Static<typeof UserRoleSchema>;

export const MeAnswerSchema = Type.Object(
  {
    name: Type.Union([Type.String(), Type.Null()], { description: 'the user’s name; null when the desk knows no users (no DESK_USERS_FILE, DESK_TOKEN or auth proxy): the loopback operator' }),
    role: UserRoleSchema,
  },
  { additionalProperties: false, description: 'the caller as the desk knows it' },
);
export type MeAnswer = Static<typeof MeAnswerSchema>;
