/**
 * The diff of two templates as it is answered (docs/api.md, diff): a unified
 * text diff and a graph diff. Node-free, so the page can import its types;
 * src/template/diff.ts computes it.
 */
import { type Static, Type } from '@sinclair/typebox';

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
