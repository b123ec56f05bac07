/**
 * The card as it is answered (docs/api.md): a template's or a proposal's
 * header, its nodes with what each can touch, its cords, its problems, and a
 * diff against the template it varies. Node-free, so the page can import its
 * types; src/template/card.ts builds it, typed by src/template/card-types.ts.
 * The checks at the end fail to compile when a schema here and its type there
 * stop saying the same thing.
 */
import { type Static, Type } from '@sinclair/typebox';
import type * as Made from '../template/card-types.js';
import { ProblemSchema } from '../template/problems.js';
import { type Agrees, type SameType, TemplateDiffSchema } from './diff.js';

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
    touches: Type.Array(Type.String(), {
      description: "what the node can touch: its profile's, then what its role's kit grants; or its tool id",
    }),
    max_visits: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'how many times a run may enter the node; bounds its loops' }),
    inlets: Type.Array(Type.String()),
    outlets: Type.Array(Type.String()),
    line: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  },
  { additionalProperties: false },
);
export type CardNode = Static<typeof CardNodeSchema>;

export const CardLoopSchema = Type.Object(
  {
    cycle: Type.Array(Type.String(), {
      description: 'one cycle through the loop, first node repeated at the end; an unbounded one when there is one',
    }),
    nodes: Type.Array(Type.String(), { description: 'the nodes of the loop, in source order' }),
    bounds: Type.Array(Type.Object({ node: Type.String(), max_visits: Type.Integer({ minimum: 1 }) }), {
      description: 'the nodes in it that declare max_visits',
    }),
    bounded: Type.Boolean({ description: 'every cycle in it passes a node with max_visits (else loop.unbounded)' }),
  },
  { additionalProperties: false },
);

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
        runs: Type.Optional(
          Type.Union([Type.Literal('together'), Type.Literal('each')], {
            description: 'list inputs: one run per item (each) or one with the whole list (together); as declared, or the default',
          }),
        ),
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
    ticket: Type.Boolean({
      description:
        'closes_ticket with a required tickets input. A launch starts one run per ticket, unless the tickets input declares runs: together (as batch does), which starts one run with the whole list',
    }),
    header: CardHeaderSchema,
    nodes: Type.Array(CardNodeSchema),
    loops: Type.Array(CardLoopSchema, {
      description: 'each loop no human gate breaks, with its bounds (docs/format.md, Loops)',
    }),
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
export type Card = Static<typeof CardSchema>;

type _CardNode = Agrees<SameType<CardNode, Made.CardNode>>;
type _CardLoop = Agrees<SameType<Static<typeof CardLoopSchema>, Made.CardLoop>>;
type _CardHeader = Agrees<SameType<Static<typeof CardHeaderSchema>, Made.CardHeader>>;
type _Card = Agrees<SameType<Omit<Card, 'problems'>, Omit<Made.Card, 'problems'>>>;
// the card's problem codes are the catalogue's (src/template/problems.ts); the answer says string
type _CardProblem = Agrees<SameType<Card['problems'][number], Omit<Made.Card['problems'][number], 'code'> & { code: string }>>;
