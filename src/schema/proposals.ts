/**
 * Proposals as the routes take and answer them (docs/api.md, Proposals): a
 * conductor proposes a template, the operator saves or dismisses it. Node-free,
 * so the page can import their types.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ProblemSchema } from '../template/problems.js';
import { CardSchema } from './card.js';
import { FROM_MAX, NOTE_MAX, NullableString, RECORD_ID, RecordDismissSchema, RecordFields, RecordListQuery, recordId, recordListSchema } from './records.js';
import { EntryStateSchema } from './state.js';
import { TemplateName } from './templates.js';

/** A proposal's id (records.ts). */
export const PROPOSAL_ID = RECORD_ID;

export const ProposalId = recordId('create');

export const ProposalStatusSchema = Type.Union([Type.Literal('pending'), Type.Literal('saved'), Type.Literal('dismissed')]);
export type ProposalStatus = Static<typeof ProposalStatusSchema>;

/** The bounds keep a proposal's record small (its source is capped at 128 KiB like a save). */
export const PROPOSAL_LIMITS = { purpose: 1000, from: FROM_MAX, note: NOTE_MAX } as const;

/** POST /proposals */
export const ProposalCreateSchema = Type.Object(
  {
    name: TemplateName,
    purpose: Type.String({ maxLength: PROPOSAL_LIMITS.purpose, description: 'one line: why the conductor proposes it' }),
    source: Type.String({ description: 'the template text; an invalid one is kept and shown as invalid' }),
    from: Type.Optional(Type.String({ maxLength: PROPOSAL_LIMITS.from, description: 'who proposes it (a conductor, a run)' })),
  },
  { additionalProperties: false },
);
export type ProposalCreate = Static<typeof ProposalCreateSchema>;

/** POST /proposals/:id/save */
export const ProposalSaveSchema = Type.Object(
  { name: Type.Optional(TemplateName) },
  { additionalProperties: false, description: "`name`: save under another name (the header's name is rewritten to it)" },
);

/** POST /proposals/:id/dismiss */
export const ProposalDismissSchema = RecordDismissSchema;

/** What a proposal's save replaced in the library (docs/api.md, Proposals). */
export const ProposalReplacedSchema = Type.Union(
  [
    Type.Object(
      {
        etag: Type.String({ description: 'the ETag of the template that loaded under that name just before the save' }),
        state: EntryStateSchema,
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    description:
      'what the save replaced: the template that loaded under that name just before (an operator copy, or a shipped or read-only template), its ETag and state; null when the name was new, while pending, when dismissed, and on a record saved before it was kept',
  },
);
export type ProposalReplaced = Static<typeof ProposalReplacedSchema>;

/** What the list shows of a proposal: no source, no card. */
export const ProposalSummarySchema = Type.Object(
  {
    id: RecordFields.id,
    status: ProposalStatusSchema,
    name: Type.String({ description: 'the name it was proposed under' }),
    purpose: Type.String(),
    from: RecordFields.from,
    created_at: RecordFields.created_at,
    decided_at: RecordFields.decided_at,
    saved_as: NullableString('the template name it was saved under; null unless saved'),
    etag: NullableString("the saved template's ETag then; null unless saved"),
    note: NullableString("the dismissal's note"),
    edited: Type.Boolean({
      description: "saved with the operator's edits: a `source` sent with the save that differs from the proposal's; false while pending, when dismissed, or saved as proposed",
    }),
    decided_by: NullableString(
      "who decided: the user's name (docs/security.md, Users and roles), or the client address on a desk with no users; null while pending, and on a record decided before it was kept",
    ),
    replaced: ProposalReplacedSchema,
  },
  { additionalProperties: false },
);
export type ProposalSummary = Static<typeof ProposalSummarySchema>;

/** One proposal: its summary, its source, and its card against the library as it is now. */
export const ProposalAnswerSchema = Type.Object(
  {
    ...ProposalSummarySchema.properties,
    source: Type.String(),
    valid: Type.Boolean({ description: 'the source is valid against the library now' }),
    problems: Type.Array(Type.Ref(ProblemSchema)),
    card: Type.Ref(CardSchema),
  },
  { additionalProperties: false },
);
export type ProposalAnswer = Static<typeof ProposalAnswerSchema>;

/** GET /proposals */
export const ProposalListSchema = recordListSchema(
  'proposals',
  ProposalSummarySchema,
  'proposals',
  'how many decided (saved or dismissed) proposals are kept, whatever the filter',
);
export type ProposalList = Static<typeof ProposalListSchema>;

export const ProposalListQuery = RecordListQuery;
