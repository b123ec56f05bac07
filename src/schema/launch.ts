/**
 * POST /api/desk/templates/:name/launch-preview (docs/api.md, Launch
 * preview): the inputs a launch would carry in, and the runs it would start
 * with their prompts folded. Node-free, so the page imports the types;
 * src/template/launch.ts builds the answer.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ProblemSchema } from '../template/problems.js';

export const LaunchPreviewBodySchema = Type.Object(
  {
    inputs: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: "input name → value, checked against the template's declared inputs; absent: no inputs (defaults fill in)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type LaunchPreviewBody = Static<typeof LaunchPreviewBodySchema>;

const Str = Type.Union([Type.String(), Type.Null()]);

export const LaunchNodeSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.String(),
    role: Str,
    model: Type.Union([Type.String(), Type.Null()], { description: 'the model the node is pinned to; null when presets fill it' }),
    profile: Str,
    builtin: Str,
    tool: Str,
    on_path: Type.Union([Type.String(), Type.Null()], {
      description: 'the command that must be on PATH for the node to run (`when: {on_path}`): the node may not run; null: it runs',
    }),
    touches: Type.Array(Type.String(), { description: "what the node can touch, as the card shows it: its profile's, then its role kit's; or its tool id" }),
    prompt: Type.Union([Type.String(), Type.Null()], {
      description: "a model node's or human gate's prompt with the run's inputs folded in as data; null for other nodes or no prompt",
    }),
    holes: Type.Array(Type.String(), {
      description: 'optional inputs with no value and no default whose `{{inputs.X}}` the prompt keeps as written, a visible hole',
    }),
  },
  { additionalProperties: false },
);
export type LaunchNode = Static<typeof LaunchNodeSchema>;

export const LaunchRunSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: '0-based, in the order of the list that fans out' }),
    inputs: Type.Record(Type.String(), Type.Unknown(), { description: 'the resolved inputs of this run, defaults filled; a fanned-out list holds its one item' }),
    nodes: Type.Array(LaunchNodeSchema),
  },
  { additionalProperties: false },
);
export type LaunchRun = Static<typeof LaunchRunSchema>;

export const LaunchPreviewSchema = Type.Object(
  {
    name: Type.String(),
    etag: Type.String({ description: 'the ETag of the template version previewed; send it as If-Match to pin it' }),
    ok: Type.Boolean({ description: 'no problem of severity error: the launch would start these runs' }),
    problems: Type.Array(Type.Ref(ProblemSchema), {
      description:
        "the inputs' problems (docs/problems.md, Launch inputs; paths /inputs/<name>), and the template's loop.unbounded warning again (path /nodes/<id>), which leaves ok as it is",
    }),
    runs: Type.Array(LaunchRunSchema, { description: 'one per item of a `runs: each` list, else one; at most 100; empty when not ok' }),
  },
  { additionalProperties: false },
);
export type LaunchPreviewAnswer = Static<typeof LaunchPreviewSchema>;
