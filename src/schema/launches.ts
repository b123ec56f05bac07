/**
 * Launch drafts as the routes take and answer them (docs/api.md, Launches):
 * a conductor drafts a launch of a template, the operator approves or
 * dismisses it, the conductor hears the decision. Node-free, so the page can
 * import their types.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ProblemDetailsSchema } from './errors.js';
import { LaunchRunSchema } from './launch.js';
import { PROPOSAL_ID } from './proposals.js';
import { TemplateName } from './templates.js';
import { ProblemSchema } from '../template/problems.js';

/** As a proposal's: `<ms since 1970, base36, 9 digits>-<80 random bits, hex>`, sorting by creation, never guessed. */
export const LAUNCH_ID = PROPOSAL_ID;

export const LaunchId = Type.String({ pattern: LAUNCH_ID.source, description: 'time-sortable and random; from the draft answer' });

export const LaunchStatusSchema = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('dismissed'), Type.Literal('withdrawn')]);
export type LaunchStatus = Static<typeof LaunchStatusSchema>;

/** The bounds keep a draft's record small (its inputs come within the 1 MiB body). */
export const LAUNCH_LIMITS = { from: 200, note: 2000 } as const;

/** `?wait=` seconds: below the 60 s a silent connection is kept open (docs/operations.md). */
export const MAX_WAIT_SECONDS = 55;

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
export const LaunchDismissSchema = Type.Object(
  { note: Type.Optional(Type.String({ maxLength: LAUNCH_LIMITS.note, description: 'why, for the conductor' })) },
  { additionalProperties: false },
);

/** POST /launches/:id/approve: the body is optional, as a dismissal's */
export const LaunchApproveSchema = Type.Object(
  { note: Type.Optional(Type.String({ maxLength: LAUNCH_LIMITS.note, description: 'a word for the conductor with the approval, kept as `decision_note`' })) },
  { additionalProperties: false },
);

const Str = Type.Union([Type.String(), Type.Null()]);

/** What the list shows of a draft: no inputs, no preview. */
export const LaunchSummarySchema = Type.Object(
  {
    id: Type.String(),
    status: LaunchStatusSchema,
    template: Type.String({ description: 'the template to launch' }),
    etag: Type.String({ description: 'the ETag of the template version the preview was made on; send it as If-Match to approve' }),
    from: Str,
    note: Type.Union([Type.String(), Type.Null()], { description: "the drafter's note, for the operator" }),
    decision_note: Type.Union([Type.String(), Type.Null()], { description: "the operator's note with the decision (an approval or a dismissal), for the conductor" }),
    created_at: Type.String({ description: 'ISO 8601' }),
    decided_at: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601; null while pending' }),
    decided_by: Type.Union([Type.String(), Type.Null()], {
      description: "who approved, dismissed or withdrew it: the user's name (docs/security.md, Users and roles), or the client address on a desk with no users; null while pending, and on a record decided before it was kept",
    }),
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
export const LaunchListSchema = Type.Object({
  pending: Type.Integer({ minimum: 0, description: 'how many drafts wait for a decision, whatever the filter' }),
  kept_decided: Type.Object(
    {
      count: Type.Integer({ minimum: 0, description: 'decided drafts kept now' }),
      limit: Type.Integer({ minimum: 1, description: 'the most kept (DESK_DECIDED_KEEP); older decided ones are removed, their history stays' }),
    },
    { additionalProperties: false },
  ),
  launches: Type.Array(LaunchSummarySchema, { description: 'newest first' }),
});
export type LaunchList = Static<typeof LaunchListSchema>;

export const LaunchListQuery = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('decided'), Type.Literal('all')], { description: 'default pending' })),
  },
  { additionalProperties: false },
);

/** `?wait=N` on GET /launches/:id and GET /proposals/:id: whole seconds, 1 to 55 (a query is text, never coerced). */
export const WaitQuery = Type.Object(
  {
    wait: Type.Optional(
      Type.String({
        pattern: '^([1-9]|[1-4][0-9]|5[0-5])$',
        description: `seconds to wait for a decision, 1 to ${MAX_WAIT_SECONDS}, when pending: the answer comes as soon as it is decided, else after this long, still pending`,
      }),
    ),
  },
  { additionalProperties: false },
);
