/**
 * The diff of two templates as it is answered (docs/api.md, diff): a unified
 * text diff and a graph diff. Node-free, so the page can import its types;
 * src/template/diff.ts computes it, typed by src/template/diff-types.ts. The
 * checks at the end fail to compile when a schema here and its type there
 * stop saying the same thing.
 */
import { type Static, Type } from '@sinclair/typebox';
import type * as Made from '../template/diff-types.js';

const Value = Type.Unknown({ description: 'the value as read; null when absent' });

export const FieldChangeSchema = Type.Object(
  { field: Type.String(), before: Value, after: Value },
  { additionalProperties: false },
);
export type FieldChange = Static<typeof FieldChangeSchema>;

const NodeRefSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.String(),
    line: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'in the side the node is on' }),
  },
  { additionalProperties: false },
);
const CordRefSchema = Type.Object({ from: Type.String(), to: Type.String() }, { additionalProperties: false });

export const GraphDiffSchema = Type.Object(
  {
    header: Type.Array(FieldChangeSchema, { description: 'header fields (and the patch version) that changed' }),
    nodes: Type.Object(
      {
        added: Type.Array(NodeRefSchema),
        removed: Type.Array(NodeRefSchema),
        changed: Type.Array(
          Type.Object({ id: Type.String(), changes: Type.Array(FieldChangeSchema) }, { additionalProperties: false }),
        ),
      },
      { additionalProperties: false },
    ),
    cords: Type.Object(
      { added: Type.Array(CordRefSchema), removed: Type.Array(CordRefSchema) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type GraphDiff = Static<typeof GraphDiffSchema>;

/** What a template is diffed against: a shipped version, its `base`, another library template, or a version from history. */
export const AgainstKindSchema = Type.Union([Type.Literal('shipped'), Type.Literal('base'), Type.Literal('template'), Type.Literal('version')]);
export type AgainstKind = Static<typeof AgainstKindSchema>;

export const TemplateDiffSchema = Type.Object(
  {
    against: Type.Object(
      { name: Type.String(), kind: AgainstKindSchema, commit: Type.Optional(Type.String({ description: 'kind version: the commit' })) },
      { additionalProperties: false },
    ),
    identical: Type.Boolean({ description: 'the two sources are byte for byte the same' }),
    unified: Type.Union([Type.String(), Type.Null()], {
      description: 'unified text diff, before = the template diffed against; null when too_different',
    }),
    too_different: Type.Boolean({
      description: 'the texts differ in too many lines for a line diff within its bounds; the graph diff is still given',
    }),
    graph: GraphDiffSchema,
  },
  { $id: 'TemplateDiff', additionalProperties: false },
);
export type TemplateDiff = Static<typeof TemplateDiffSchema>;

/**
 * True when A and B are the same type: each assignable to the other, and,
 * through objects and arrays, no property optional in one and absent from
 * the other (mutual assignability alone lets `{ a?: string }` and `{}` pass).
 * src/schema/card.ts uses it too.
 */
export type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? SameShape<NonNullable<A>, NonNullable<B>> : false) : false;
type SameShape<A, B> = [A] extends [readonly (infer E)[]]
  ? [B] extends [readonly (infer F)[]]
    ? SameType<E, F>
    : false
  : [A] extends [object]
    ? [Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>] extends [never]
      ? { [K in keyof A & keyof B]-?: SameType<A[K], B[K]> }[keyof A & keyof B] extends true
        ? true
        : false
      : false
    : true;
/** Compiles only when its argument is `true`. */
export type Agrees<T extends true> = T;

type _FieldChange = Agrees<SameType<FieldChange, Made.FieldChange>>;
type _GraphDiff = Agrees<SameType<GraphDiff, Made.GraphDiff>>;
type _AgainstKind = Agrees<SameType<AgainstKind, Made.AgainstKind>>;
type _TemplateDiff = Agrees<SameType<TemplateDiff, Made.TemplateDiff>>;
