/**
 * The tools' arguments and results (docs/conductor.md), as TypeBox schemas
 * built from the API's own (src/schema): one schema serves the arguments'
 * check, the types and the JSON Schema tools/list hands out (./json-schema.ts).
 */
import { type Static, Type } from '@sinclair/typebox';
import { CardHeaderSchema } from '../schema/card.js';
import { LaunchAnswerSchema, LaunchCreateSchema, LaunchId, MAX_WAIT_SECONDS } from '../schema/launches.js';
import { LaunchRunSchema } from '../schema/launch.js';
import { ProposalAnswerSchema, ProposalCreateSchema } from '../schema/proposals.js';
import { EntryStateSchema } from '../schema/state.js';
import { TemplateAnswerSchema, TemplateName } from '../schema/templates.js';
import { ProblemSchema } from '../template/problems.js';

/** The most templates one list_templates page holds. */
export const MAX_PAGE = 200;
/** await_decision's wait when none is asked; its most is the HTTP `?wait=`'s (below the 60 s a silent connection is kept). */
export const DEFAULT_WAIT_SECONDS = 25;
export { MAX_WAIT_SECONDS };

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T, description: string) => Type.Union([t, Type.Null()], { description });
const closed = { additionalProperties: false } as const;

// --- arguments -------------------------------------------------------------

export const ListTemplatesArgs = Type.Object(
  {
    cursor: Type.Optional(Type.String({ description: 'next_cursor from the page before; absent: the first page' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, description: `templates per page, at most ${MAX_PAGE}; default ${MAX_PAGE}` })),
  },
  closed,
);

export const GetTemplateArgs = Type.Object({ name: TemplateName }, closed);

export const ValidateTemplateArgs = Type.Object(
  {
    source: Type.String({ description: 'the whole template file (YAML)' }),
    name: Type.Optional(Type.String({ ...TemplateName, description: 'the name it would be saved under; the header must say the same' })),
  },
  closed,
);

export const ProposeTemplateArgs = Type.Object(
  {
    name: ProposalCreateSchema.properties.name,
    purpose: Type.String({ ...ProposalCreateSchema.properties.purpose, description: 'one line: why you propose it, for the operator' }),
    source: Type.String({ description: 'the whole template file (YAML); an invalid one is kept and shown as invalid' }),
  },
  closed,
);

export const DraftLaunchArgs = Type.Object(
  {
    template: LaunchCreateSchema.properties.template,
    inputs: Type.Record(Type.String(), Type.Unknown(), {
      description: "input name → value, as the template's inputs declare them (list_templates shows them); defaults fill in what is left out",
    }),
    note: Type.Optional(Type.String({ ...LaunchCreateSchema.properties.note, description: 'why, for the operator' })),
  },
  closed,
);

export const AwaitDecisionArgs = Type.Object(
  {
    id: Type.String({ pattern: LaunchId.pattern, description: "a proposal's or a launch draft's id, from propose_template or draft_launch" }),
    wait_s: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_WAIT_SECONDS, description: `seconds to wait for the operator, 0 to ${MAX_WAIT_SECONDS}; default ${DEFAULT_WAIT_SECONDS}` }),
    ),
  },
  closed,
);

export const WithdrawLaunchArgs = Type.Object({ id: Type.String({ pattern: LaunchId.pattern, description: 'the id draft_launch answered' }) }, closed);

// --- results ---------------------------------------------------------------

const InputDeclSchema = CardHeaderSchema.properties.inputs.items;

export const TemplateListResult = Type.Object(
  {
    templates: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          purpose: Nullable(Type.String(), "the header's one-line purpose"),
          state: EntryStateSchema,
          valid: Type.Boolean({ description: 'false: it cannot be launched until the operator fixes it' }),
          ticket: Type.Boolean({ description: 'a ticket template: one run per ticket of its `tickets` input' }),
          inputs: Type.Array(InputDeclSchema, { description: 'what draft_launch takes: each input with its type, whether required, its default and description' }),
        },
        closed,
      ),
    ),
    next_cursor: Nullable(Type.String(), 'pass it as cursor for the next page; null: this was the last'),
  },
  closed,
);

export const TemplateResult = Type.Object(
  { ...TemplateAnswerSchema.properties, etag: Type.String({ description: 'the strong ETag of the bytes that load' }) },
  { additionalProperties: false },
);

export const ValidationResult = Type.Object(
  {
    valid: Type.Boolean({ description: 'no problem of severity error: the save would take it' }),
    problems: Type.Array(Type.Ref(ProblemSchema), { description: 'every problem, as the save would judge it (docs/problems.md)' }),
  },
  closed,
);

export const ProposalResult = ProposalAnswerSchema;
export const LaunchResult = LaunchAnswerSchema;

export const DecisionResult = Type.Object(
  {
    kind: Type.Union([Type.Literal('proposal'), Type.Literal('launch')]),
    id: Type.String(),
    status: Type.Union(
      ['pending', 'saved', 'dismissed', 'approved', 'withdrawn'].map((s) => Type.Literal(s)),
      { description: 'pending: the operator has not decided yet (call again); a proposal is then saved or dismissed, a launch draft approved, dismissed or withdrawn' },
    ),
    name: Type.String({ description: 'the proposed name, or the template the draft launches' }),
    saved_as: Nullable(Type.String(), 'a saved proposal: the name it was saved under'),
    edited: Type.Boolean({ description: "a saved proposal: the operator saved their edit of it, not your text as it was" }),
    note: Nullable(Type.String(), "the operator's note: why a proposal or draft was dismissed, or that a proposal was saved with edits"),
    decided_by: Nullable(Type.String(), 'who decided'),
    decided_at: Nullable(Type.String(), 'ISO 8601'),
    runs: Type.Union([Type.Array(LaunchRunSchema), Type.Null()], { description: 'an approved launch draft: the runs to start; null otherwise' }),
  },
  closed,
);

export type DecisionAnswer = Static<typeof DecisionResult>;
export type TemplateListAnswer = Static<typeof TemplateListResult>;
