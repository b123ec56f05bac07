/**
 * Roles as the routes answer them (docs/api.md): the list row and the whole
 * role with its kit. Node-free, so the page can import their types.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ROLE_NAME } from '../template/names.js';
import { ProblemSchema } from '../template/problems.js';
import { EntryStateSchema } from './state.js';
import { DivergedWhySchema } from './sync.js';

export const RoleName = Type.String({
  pattern: ROLE_NAME.source,
  description: 'an identifier: lowercase letters, digits and underscores, starting with a letter, at most 64',
});

/** A role save's optional note, as a template save's (schema/templates.ts SaveNote). */
export const RoleSaveNote = Type.String({ description: 'why this save: one line of at most 200 characters, kept in the history entry (`save role reviewer: …`)' });

export const KitSchema = Type.Object(
  { tools: Type.Array(Type.String()) },
  { additionalProperties: false, description: 'kit.json: the tools the role may use' },
);
export type Kit = Static<typeof KitSchema>;

export const RoleSummarySchema = Type.Object(
  {
    name: Type.String(),
    shipped: Type.Boolean(),
    state: EntryStateSchema,
    edited_outside: Type.Boolean(),
    has_kit: Type.Boolean(),
    valid: Type.Boolean(),
  },
  { $id: 'RoleSummary' },
);
export type RoleSummary = Static<typeof RoleSummarySchema>;

/** GET /roles */
export const RoleListSchema = Type.Object({ roles: Type.Array(Type.Ref(RoleSummarySchema)) });
export type RoleList = Static<typeof RoleListSchema>;

export const RoleAnswerSchema = Type.Object(
  {
    name: Type.String(),
    state: EntryStateSchema,
    shipped: Type.Boolean(),
    edited_outside: Type.Boolean(),
    role_md: Type.String(),
    kit: Type.Union([KitSchema, Type.Null()]),
    shipped_role_md: Type.Union([Type.String(), Type.Null()]),
    shipped_kit: Type.Union([KitSchema, Type.Null()]),
    valid: Type.Boolean(),
    problems: Type.Array(Type.Ref(ProblemSchema)),
    diverged: Type.Optional(DivergedWhySchema),
  },
  { $id: 'RoleAnswer' },
);
export type RoleAnswer = Static<typeof RoleAnswerSchema>;
