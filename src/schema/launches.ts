/**
 * Launch drafts as the routes take and answer them (docs/api.md, Launches):
 * a conductor drafts a launch of a template, the operator approves or
 * dismisses it, the conductor hears the decision. Node-free, so the page can
 * import their types.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ProblemDetailsSchema } from './errors.js';
import { LaunchRunSchema } from './launch.js';
import { FROM_MAX, NOTE_MAX, NullableString, RECORD_ID, RecordDismissSchema, RecordFields, RecordListQuery, recordId, recordListSchema } from './records.js';
import { TemplateName } from './templates.js';
import { ProblemSchema } from '../template/problems.js';

/** As a proposal's (records.ts). */
export const LAUNCH_ID = RECORD_ID;

export const LaunchId = recordId('draft');

export const LaunchStatusSchema = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('dismissed'), Type.Literal('withdrawn')]);
export type LaunchStatus = Static<typeof LaunchStatusSchema>;

/** The bounds keep a draft's record small (its inputs come within the 1 MiB body). */
export const LAUNCH_LIMITS = { from: FROM_MAX, note: NOTE_MAX } as const;

export { MAX_WAIT_SECONDS, WaitQuery } from './records.js';

/** POST /launches */
export const LaunchCreateSchema = Type.Object(
  {
    template: TemplateName,
    inputs: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: "input name → value, checked as the launch preview checks them; absent: none (defaults fill in)" }),
    ),
    from: Type.Optional(Type.String({ maxLength: LAUNCH_LIMITS.from, description: 'who drafts it (a conductor, a run)' })),
    note: Type.Optional(Type.String({ maxLength: LAUNCH_LIMITS.note, description: 'why, for the operator' })),
  },
  { additionalProperties: false },
);
export type LaunchCreate = Static<typeof LaunchCreateSchema>;

/** POST /launches/:id/dismiss */
export const LaunchDismissSchema = RecordDismissSchema;

/** POST /launches/:id/approve: the body is optional, as a dismissal's */
export const LaunchApproveSchema = Type.Object(
  { note: Type.Optional(Type.String({ maxLength: LAUNCH_LIMITS.note, description: 'a word for the conductor with the approval, kept as `decision_note`' })) },
  { additionalProperties: false },
);

/** What the list shows of a draft: no inputs, no preview. */
export const LaunchSummarySchema = Type.Object(
  {
    id: RecordFields.id,
    status: LaunchStatusSchema,
    template: Type.String({ description: 'the template to launch' }),
    etag: Type.String({ description: 'the ETag of the template version the preview was made on; send it as If-Match to approve' }),
    from: RecordFields.from,
    note: NullableString("the drafter's note, for the operator"),
    decision_note: NullableString("the operator's note with the decision (an approval or a dismissal), for the conductor"),
    created_at: RecordFields.created_at,
    decided_at: RecordFields.decided_at,
    decided_by: NullableString(
      "who approved, dismissed or withdrew it: the user's name (docs/security.md, Users and roles), or the client address on a desk with no users; null while pending, and on a record decided before it was kept",
    ),
  },
  { additionalProperties: false },
);
export type LaunchSummary = Static<typeof LaunchSummarySchema>;

export const LaunchDraftPreviewSchema = Type.Object(
  {
    ok: Type.Boolean({ description: 'no problem of severity error: approving it gives these runs' }),
    problems: Type.Array(Type.Ref(ProblemSchema), { description: "the launch preview's codes, or the template's own problems when it is not valid" }),
    runs: Type.Array(LaunchRunSchema, { description: 'one per ticket of a ticket template, else one; empty when not ok' }),
  },
  { additionalProperties: false },
);

/** One draft: its summary, its inputs and its preview on the version `etag` names. */
export const LaunchAnswerSchema = Type.Object(
  {
    ...LaunchSummarySchema.properties,
    inputs: Type.Record(Type.String(), Type.Unknown(), { description: 'as checked, defaults filled' }),
    preview: LaunchDraftPreviewSchema,
    runs: Type.Union([Type.Array(LaunchRunSchema), Type.Null()], { description: 'the runs to start once approved; null otherwise' }),
    current_etag: Type.Union([Type.String(), Type.Null()], { description: "the template's ETag now; null when no template of that name loads" }),
    changed: Type.Boolean({ description: 'pending, and the template changed since the preview was made: approving refreshes it first' }),
  },
  { additionalProperties: false },
);
export type LaunchAnswer = Static<typeof LaunchAnswerSchema>;

/** 409 template_changed, 412 precondition_failed and 409 template_invalid_for_launch of an approve: the refusal with the draft as it is now. */
export const LaunchRefusalSchema = Type.Object(
  {
    ...ProblemDetailsSchema.properties,
    draft: Type.Optional(LaunchAnswerSchema),
  },
  { description: 'the refusal; `draft`: the draft as refreshed on the template as it is now' },
);

/** GET /launches */
export const LaunchListSchema = recordListSchema('launches', LaunchSummarySchema, 'drafts');
export type LaunchList = Static<typeof LaunchListSchema>;

export const LaunchListQuery = RecordListQuery;
