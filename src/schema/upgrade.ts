/**
 * The upgrade assistant's answers (docs/api.md, Upgrade): the plan of every
 * operator copy behind the shipped templates and roles, the apply's request
 * and its answer. Node-free, so the page compiles against the same types.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ProblemSchema } from '../template/problems.js';
import { RoleName } from './roles.js';
import { EntryStateSchema } from './state.js';
import { TemplateName } from './templates.js';

export const UpgradeOutcomeSchema = Type.Union(
  [Type.Literal('reset'), Type.Literal('clean'), Type.Literal('conflicts'), Type.Literal('invalid'), Type.Literal('no_kept_base')],
  {
    description:
      'reset: an unedited copy of an older shipped version, it becomes today\'s shipped; clean: the three-way merge has no conflict and validates; conflicts: the merge has conflict blocks; invalid: it merges but does not validate; no_kept_base: the older shipped version is not kept, only reset or acknowledge',
  },
);
export type UpgradeOutcomeName = Static<typeof UpgradeOutcomeSchema>;

const ETag = Type.String({ description: "the copy's strong ETag now, quoted: an apply's if_match" });

export const PlannedTemplateSchema = Type.Object(
  {
    name: Type.String(),
    state: EntryStateSchema,
    outcome: UpgradeOutcomeSchema,
    etag: ETag,
    conflicts: Type.Integer({ minimum: 0, description: 'conflict blocks of the merge' }),
    problems: Type.Array(Type.Ref(ProblemSchema), { description: "the merged text's problems" }),
    base: Type.Optional(
      Type.String({
        description:
          "the older shipped bytes the copy was saved against (the kept base), when an edited copy has one: with today's shipped bytes, the upstream change alone; merged with the copy, what the upgrade writes",
      }),
    ),
  },
  { additionalProperties: false },
);

export const PlannedRoleSchema = Type.Object(
  {
    name: Type.String(),
    state: EntryStateSchema,
    outcome: UpgradeOutcomeSchema,
    etag: ETag,
    conflicts: Type.Integer({ minimum: 0 }),
    base: Type.Optional(
      Type.String({
        description:
          "the older built-in role.md the copy was saved against (from the kept base), when an edited copy has one: with today's built-in role.md, the upstream change alone; merged with the copy's, what the upgrade writes",
      }),
    ),
  },
  { additionalProperties: false },
);

export const UpgradePlanSchema = Type.Object(
  {
    templates: Type.Array(PlannedTemplateSchema),
    roles: Type.Array(PlannedRoleSchema),
  },
  { additionalProperties: false },
);
export type UpgradePlanAnswer = Static<typeof UpgradePlanSchema>;

const Asked = (name: typeof TemplateName | typeof RoleName) =>
  Type.Object(
    {
      name,
      if_match: Type.Optional(Type.String({ description: "the ETag the plan gave; a stale one skips the copy with precondition_failed" })),
    },
    { additionalProperties: false },
  );

export const UpgradeRequestSchema = Type.Object(
  {
    templates: Type.Optional(Type.Array(Asked(TemplateName), { maxItems: 10000 })),
    roles: Type.Optional(Type.Array(Asked(RoleName), { maxItems: 1000 })),
  },
  { additionalProperties: false, description: 'nothing listed: every reset and clean copy of the plan' },
);
export type UpgradeRequestBody = Static<typeof UpgradeRequestSchema>;

const Kind = Type.Union([Type.Literal('template'), Type.Literal('role')]);

export const UpgradeResultSchema = Type.Object(
  {
    applied: Type.Array(
      Type.Object({ name: Type.String(), kind: Kind, state: EntryStateSchema, etag: Type.String() }, { additionalProperties: false }),
    ),
    skipped: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          kind: Kind,
          outcome: Type.Union([UpgradeOutcomeSchema, Type.Null()], { description: "the plan's outcome; null when the copy is not behind" }),
          code: Type.Optional(Type.String({ description: 'precondition_failed, state_conflict, read_only, or the code of an error writing it' })),
          reason: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type UpgradeResultAnswer = Static<typeof UpgradeResultSchema>;
