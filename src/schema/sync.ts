/**
 * The sync with the team's remote (docs/api.md, Sync; docs/history.md,
 * Sync). Node-free, so the page imports the types.
 */
import { type Static, Type } from '@sinclair/typebox';

/** A round while it runs: GET /sync carries it, and POST /sync answers 202 with it when the round outlasts its wait. */
export const RoundProgressSchema = Type.Object(
  {
    id: Type.String(),
    state: Type.Literal('running'),
    done: Type.Integer({ minimum: 0, description: "names of the round merged so far (templates, roles, kept bases, proposal records)" }),
    total: Type.Integer({ minimum: 0, description: 'names the remote changed; 0 until the round has fetched and compared' }),
    started_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
export type RoundProgress = Static<typeof RoundProgressSchema>;

/** POST /sync's 202: the round goes on; GET /sync follows it, and `library.synced` says when it is done. */
export const SyncRunningSchema = Type.Object({ round: RoundProgressSchema }, { additionalProperties: false });

/** Why a name is diverged: its copy here and the remote's differ, and a person must decide (docs/history.md, Diverged). */
export const DivergedReasonSchema = Type.Union(
  [Type.Literal('conflict'), Type.Literal('invalid'), Type.Literal('too_large'), Type.Literal('deleted_vs_edited'), Type.Literal('unreadable')],
  {
    description:
      "conflict: both sides changed and do not merge; invalid: the remote's version does not validate here; too_large: the remote's file is over the size cap; deleted_vs_edited: removed on one side, edited on the other; unreadable: git could not give the remote's file",
  },
);

export const DivergedDetailSchema = Type.Object(
  {
    name: Type.String(),
    kind: Type.Union([Type.Literal('template'), Type.Literal('role')]),
    reason: DivergedReasonSchema,
    problems: Type.Array(Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false }), {
      description: "for `invalid`: the validator's errors in the remote's version",
    }),
    size: Type.Optional(Type.Integer({ minimum: 0, description: "for `too_large`: the size in bytes of the remote's file over its cap, which is never read" })),
  },
  { additionalProperties: false },
);
export type DivergedDetail = Static<typeof DivergedDetailSchema>;

/** On a template's or role's answer while it is diverged: why, as GET /sync's diverged_detail says it. */
export const DivergedWhySchema = Type.Object(
  { reason: DivergedReasonSchema, problems: DivergedDetailSchema.properties.problems },
  { additionalProperties: false, description: "present only while the state is `diverged`: why this desk's copy and the remote's differ" },
);

export type DivergedWhy = Static<typeof DivergedWhySchema>;

export const IgnoredPathSchema = Type.Object(
  {
    path: Type.String({ description: "root-relative, as the remote's tree holds it" }),
    reason: Type.Union(
      [Type.Literal('subfolder'), Type.Literal('not_yaml'), Type.Literal('not_a_name'), Type.Literal('not_library'), Type.Literal('too_large'), Type.Literal('hash_mismatch'), Type.Literal('unreadable')],
      { description: 'why the desk does not load it; it stays in the shared history as the remote has it' },
    ),
  },
  { additionalProperties: false },
);

export const SyncStatusSchema = Type.Object(
  {
    remote: Type.Union([Type.String(), Type.Null()], {
      description: 'DESK_LIBRARY_REMOTE, any password in a URL left out; null when the service runs without one',
    }),
    ahead: Type.Integer({ minimum: 0, description: 'commits here the remote has not got (as last fetched)' }),
    behind: Type.Integer({ minimum: 0, description: 'commits on the remote not merged here (as last fetched)' }),
    last_sync: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when the last fetch and merge succeeded' }),
    last_error: Type.Union([Type.String(), Type.Null()], { description: 'why the last push or sync failed; null once one succeeds' }),
    diverged: Type.Array(Type.String(), {
      description: "templates whose copy here and the remote's differ and a person must decide: this desk loads its copy, and publishes the remote's until then",
    }),
    diverged_roles: Type.Array(Type.String(), { description: 'the same for roles' }),
    diverged_detail: Type.Array(DivergedDetailSchema, { description: 'why each of those is diverged' }),
    ignored: Type.Array(IgnoredPathSchema, {
      description: "paths of the remote's last merged head the desk does not load (a teammate's README, a subfolder, a name the format refuses): kept in history as the remote has them, never written to disk",
    }),
    round: Type.Optional(RoundProgressSchema),
  },
  { additionalProperties: false },
);
export type SyncStatus = Static<typeof SyncStatusSchema>;

/** GET /sync/templates/:name: a diverged template's other versions. */
export const DivergedTemplateSchema = Type.Object(
  {
    name: Type.String(),
    remote: Type.String({ description: "the remote's commit the conflict came from; diff against it with ?against=version:<remote>" }),
    base: Type.Union([Type.String(), Type.Null()], { description: 'the merge base, or null when the two histories share none' }),
    remote_source: Type.Union([Type.String(), Type.Null()], {
      description: "what loads on the remote: its copy, or the shipped bytes when it has none; null when a custom template was removed there",
    }),
    base_source: Type.Union([Type.String(), Type.Null()], { description: 'what loaded at the merge base, the same way; null when there is none' }),
    reason: DivergedReasonSchema,
    problems: DivergedDetailSchema.properties.problems,
    remote_size: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: "the size in bytes of the remote's file; null when it has none. For `too_large` `remote_source` is null and this says how large it is",
    }),
  },
  { additionalProperties: false },
);
export type DivergedTemplate = Static<typeof DivergedTemplateSchema>;

const RoleFilesSchema = Type.Union(
  [Type.Object({ role_md: Type.String(), kit: Type.Union([Type.String(), Type.Null()]) }, { additionalProperties: false }), Type.Null()],
);

/** GET /sync/roles/:name: a diverged role's other versions. */
export const DivergedRoleSchema = Type.Object(
  {
    name: Type.String(),
    remote: Type.String({ description: "the remote's commit the divergence came from" }),
    base: Type.Union([Type.String(), Type.Null()], { description: 'the merge base, or null when the two histories share none' }),
    remote_files: Type.Union([RoleFilesSchema], { description: "the remote's role.md and kit.json; null when it has no copy (the built-in loads there, or the role was removed)" }),
    base_files: Type.Union([RoleFilesSchema], { description: 'the same at the merge base' }),
    reason: DivergedReasonSchema,
    problems: DivergedDetailSchema.properties.problems,
    remote_size: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: "the size in bytes of the remote's role.md; null when it has none. For `too_large` `remote_files` is null and this says how large the file over the cap is",
    }),
  },
  { additionalProperties: false },
);
export type DivergedRole = Static<typeof DivergedRoleSchema>;
