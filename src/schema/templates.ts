/**
 * Templates as the routes answer them (docs/api.md): the list row, the whole
 * template, and the rebase preview. Fields are snake_case. Node-free, so the
 * page can import their types.
 */
import { type Static, Type } from '@sinclair/typebox';
import { TEMPLATE_NAME } from '../template/names.js';
import { ProblemSchema } from '../template/problems.js';
import { CardSchema } from './card.js';
import { EntryStateSchema } from './state.js';
import { DivergedWhySchema } from './sync.js';

export const TemplateName = Type.String({
  pattern: TEMPLATE_NAME.source,
  description: 'lowercase letters, digits and dashes, starting with a letter or digit, at most 64',
});

export const TemplateSummarySchema = Type.Object(
  {
    name: Type.String(),
    purpose: Type.Union([Type.String(), Type.Null()]),
    shipped: Type.Boolean(),
    read_only: Type.Boolean(),
    state: EntryStateSchema,
    edited_outside: Type.Boolean(),
    ticket: Type.Boolean(),
    writes: Type.Boolean(),
    closes_ticket: Type.Boolean(),
    base: Type.Union([Type.String(), Type.Null()]),
    valid: Type.Boolean(),
    errors: Type.Integer({ minimum: 0, description: 'number of problems of severity error' }),
    warnings: Type.Integer({ minimum: 0, description: 'number of problems of severity warning' }),
  },
  { $id: 'TemplateSummary' },
);
export type TemplateSummary = Static<typeof TemplateSummarySchema>;

/** GET /templates */
export const TemplateListSchema = Type.Object({ templates: Type.Array(Type.Ref(TemplateSummarySchema)) });
export type TemplateList = Static<typeof TemplateListSchema>;

/**
 * A save's optional note: one line of at most 200 characters, written into
 * the history entry's subject (`save quick-fix: tighten the gate`). A longer
 * or multi-line note is refused with 422 and the `note.invalid` problem
 * (checked by the library, src/library/templates/note.ts, so the schema
 * leaves its length alone and the refusal carries its code).
 */
export const SaveNote = Type.String({ description: 'why this save: one line of at most 200 characters, kept in the history entry (`save quick-fix: tighten the gate`)' });

export const TemplateAnswerSchema = Type.Object(
  {
    name: Type.String(),
    state: EntryStateSchema,
    shipped: Type.Boolean(),
    read_only: Type.Boolean(),
    edited_outside: Type.Boolean(),
    source: Type.String({ description: 'the bytes that load' }),
    shipped_source: Type.Union([Type.String(), Type.Null()], { description: "today's shipped bytes" }),
    valid: Type.Boolean(),
    problems: Type.Array(Type.Ref(ProblemSchema)),
    card: Type.Ref(CardSchema),
    diverged: Type.Optional(DivergedWhySchema),
  },
  { $id: 'TemplateAnswer' },
);
export type TemplateAnswer = Static<typeof TemplateAnswerSchema>;

/** One part of the merge: lines that merged cleanly, or a conflict with the lines of each side. */
export const MergePartSchema = Type.Union([
  Type.Object({ kind: Type.Literal('clean'), text: Type.String() }, { additionalProperties: false }),
  Type.Object(
    {
      kind: Type.Literal('conflict'),
      copy: Type.String({ description: 'the lines of the copy' }),
      base: Type.String({ description: 'the lines both sides come from: the shipped lines the copy was saved against (or, for a sync rebase, the merge base)' }),
      theirs: Type.String({ description: "the lines of the version the copy goes onto: today's shipped, or the team remote's" }),
    },
    { additionalProperties: false },
  ),
]);
export type MergePart = Static<typeof MergePartSchema>;

/** POST /templates/:name/rebase: the three-way merge, shown and never written. */
export const RebaseAnswerSchema = Type.Object({
  merged: Type.String({ description: 'the merged source, with git-style markers where it conflicts' }),
  conflicts: Type.Integer({ minimum: 0, description: 'how many hunks conflict' }),
  parts: Type.Array(MergePartSchema, {
    description: 'the same merge in order: joining the clean texts with one side of each conflict gives a text without markers',
  }),
  valid: Type.Boolean(),
  problems: Type.Array(Type.Ref(ProblemSchema)),
});
export type RebaseAnswer = Static<typeof RebaseAnswerSchema>;
