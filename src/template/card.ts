/**
 * The card (docs/api.md): what the settings page and the desk show
 * for a template or a proposal — its header, its nodes with what each can
 * touch, its cords, its problems, and a diff against the template it varies.
 * Format layer: pure, no I/O; the caller picks what to diff against.
 */
import { type Static, Type } from '@sinclair/typebox';
import { type AgainstKind, diffTemplates, type TemplateDiff, TemplateDiffSchema } from './diff.js';
import type { Catalogue, HeaderModel, NodeModel } from './model.js';
import { type Problem, ProblemSchema } from './problems.js';
import { validateTemplate } from './validate.js';

const Str = Type.Union([Type.String(), Type.Null()]);

export const CardNodeSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.String({ description: 'model, builtin or tool; an unknown type is shown as written' }),
    role: Str,
    model: Str,
    profile: Str,
    builtin: Str,
    tool: Str,
    touches: Type.Array(Type.String(), { description: "what the node can touch: its profile's, or its tool id" }),
    inlets: Type.Array(Type.String()),
    outlets: Type.Array(Type.String()),
    line: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  },
  { additionalProperties: false },
);
export type CardNode = Static<typeof CardNodeSchema>;

export const CardHeaderSchema = Type.Object(
  {
    name: Str,
    purpose: Str,
    base: Str,
    inputs: Type.Array(
      Type.Object({
        name: Type.String(),
        required: Type.Boolean(),
        type: Type.String(),
        description: Type.Optional(Type.String()),
        default: Type.Optional(Type.Unknown()),
        one_of: Type.Optional(Type.Array(Type.Unknown())),
      }),
    ),
    roles: Type.Array(Type.Object({ role: Type.String(), node: Type.String() })),
    writes: Type.Boolean(),
    closes_ticket: Type.Boolean(),
    entry: Str,
    inlet: Str,
    terminal: Str,
  },
  { additionalProperties: false },
);

export const CardSchema = Type.Object(
  {
    name: Type.String({ description: 'the name argument (URL or proposal name)' }),
    purpose: Type.Union([Type.String(), Type.Null()], {
      description: "the header's purpose, else the purpose argument",
    }),
    valid: Type.Boolean(),
    problems: Type.Array(Type.Ref(ProblemSchema)),
    ticket: Type.Boolean({ description: 'closes_ticket with a required tickets input: one run per ticket' }),
    header: CardHeaderSchema,
    nodes: Type.Array(CardNodeSchema),
    cords: Type.Array(
      Type.Object({
        from: Type.String(),
        to: Type.String(),
        line: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
      }),
    ),
    diff: Type.Union([Type.Ref(TemplateDiffSchema), Type.Null()], {
      description: 'against the header base, else the library template of the same name, else null',
    }),
    name_differs: Type.Boolean({ description: "the name argument is not the header's name" }),
    purpose_differs: Type.Boolean({ description: "a purpose argument was given and is not the header's purpose" }),
  },
  { $id: 'Card', additionalProperties: false },
);
export type Card = Omit<Static<typeof CardSchema>, 'problems' | 'diff'> & {
  problems: Problem[];
  diff: TemplateDiff | null;
};

export interface CardArguments {
  /** the name the template must carry */
  name: string;
  /** the purpose the proposer gave, compared with the header's */
  purpose?: string;
}

export interface CardAgainst {
  name: string;
  kind: AgainstKind;
  source: string;
}

/** Builds the card of `source`. Never throws; an unreadable template gives an empty card with its problems. */
export function buildCard(
  source: string,
  args: CardArguments,
  catalogue: Catalogue,
  against: CardAgainst | null = null,
  /** the validator; a caller that keeps validations (src/http/answers.ts) passes a memoised one. Default: validateTemplate */
  validate: typeof validateTemplate = validateTemplate,
): Card {
  const { template, problems, valid } = validate(source, { name: args.name, catalogue });
  const header = cardHeader(template?.header);
  const purposeArg = args.purpose;
  let diff: TemplateDiff | null = null;
  if (against) {
    const d = diffTemplates(
      { name: against.name, source: against.source, label: `${against.kind}/${against.name}.yaml` },
      { name: args.name, source, label: `${args.name}.yaml` },
      catalogue,
      validate,
    );
    diff = { against: { name: against.name, kind: against.kind }, ...d };
  }
  return {
    name: args.name,
    purpose: header.purpose ?? purposeArg ?? null,
    valid,
    problems,
    ticket: template?.ticket ?? false,
    header,
    nodes: (template?.nodes ?? []).map(cardNode),
    cords: (template?.cords ?? []).map((c) => ({ from: c.from, to: c.to, line: c.line ?? null })),
    diff,
    name_differs: header.name !== args.name,
    purpose_differs: purposeArg !== undefined && purposeArg.trim() !== (header.purpose ?? '').trim(),
  };
}

function cardHeader(h: HeaderModel | undefined): Card['header'] {
  return {
    name: h?.name ?? null,
    purpose: h?.purpose ?? null,
    base: h?.base ?? null,
    inputs: (h?.inputs ?? []).map((i) => ({ ...i })),
    roles: (h?.roles ?? []).map((r) => ({ role: r.role, node: r.node })),
    writes: h?.writes ?? false,
    closes_ticket: h?.closes_ticket ?? false,
    entry: h?.entry ?? null,
    inlet: h?.inlet ?? null,
    terminal: h?.terminal ?? null,
  };
}

function cardNode(n: NodeModel): CardNode {
  return {
    id: n.id,
    type: n.type,
    role: n.role ?? null,
    model: n.model ?? null,
    profile: n.profile ?? null,
    builtin: n.builtin ?? null,
    tool: n.tool ?? null,
    touches: [...n.touches],
    inlets: [...n.inlets],
    outlets: [...n.outlets],
    line: n.line ?? null,
  };
}

