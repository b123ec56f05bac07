/**
 * The one TypeBox schema of a template file (docs/format.md). It is
 * the single source for structure: the validator reads the allowed keys, the
 * required keys and each key's JSON type from these objects (walk.ts
 * `checkMap`), and `templateJsonSchema()` exports them as draft-07 JSON Schema
 * for yaml-language-server. Enumerations come from the catalogue modules so no
 * list is typed twice.
 */
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import { BUILTINS, type BuiltinName } from './catalog/builtins.js';
import { CAPABILITIES } from './catalog/capabilities.js';
import { PROFILES } from './catalog/profiles.js';
import { TOOLS } from './catalog/tools.js';
import { INPUT_RUNS } from './model.js';
import { INPUT_NAME, NODE_ID, TEMPLATE_NAME } from './names.js';
import { LIMITS } from './read.js';

/** Patterns of the schema; the name patterns are names.ts's, shared with the library and HTTP. */
export const PATTERNS = {
  /** template names and `base`: lowercase, digits, dashes; at most 64 */
  templateName: TEMPLATE_NAME.source,
  /** node ids, role names and slots, port names: identifiers of at most 64 */
  identifier: NODE_ID.source,
  /** input names: `[a-z][a-z0-9_]*` */
  inputName: INPUT_NAME.source,
  /** a model id such as `claude` or `grok-4.1` (our decision: docs/format.md) */
  model: '^[a-z0-9][a-z0-9._-]{0,63}$',
  /** a bare command name for `when.on_path`: no path, no arguments (docs/format.md) */
  command: '^[A-Za-z0-9_][A-Za-z0-9._+-]{0,127}$',
  /** a cord end: `<node>.<port>` */
  endpoint: '^([a-z][a-z0-9_]{0,63})\\.([a-z][a-z0-9_]{0,63})$',
} as const;

/** What to write instead, for a value that does not match a pattern, keyed by the pattern text. */
export const PATTERN_HINTS: Record<string, string> = {
  [PATTERNS.inputName]: 'use lowercase letters, digits and underscores, starting with a letter',
  [PATTERNS.templateName]: 'use lowercase letters, digits and dashes, starting with a letter or digit, at most 64 characters',
  [PATTERNS.identifier]: 'use lowercase letters, digits and underscores, starting with a letter, at most 64 characters',
  [PATTERNS.model]: 'use a model id such as claude or grok',
  [PATTERNS.command]: 'use a bare command name such as grok, with no path or arguments',
  [PATTERNS.endpoint]: 'write it as <node>.<port>, e.g. work.done',
};

export const INPUT_TYPES = ['string', 'number', 'integer', 'boolean', 'list'] as const;
export const SUPPORTED_VERSION = 1;

/** A string restricted to `values`, exported as a plain JSON Schema `enum` (best for editor completion). */
function StringEnum<T extends readonly string[]>(values: T, options: { description: string }) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

const Identifier = (description: string) => Type.String({ pattern: PATTERNS.identifier, description });
/**
 * `max_visits` on a model or builtin node: the bound on a loop no human gate
 * breaks (loops.ts). Exported so the validator reads the same bound the JSON
 * Schema states.
 */
export const MaxVisitsSchema = Type.Integer({
  minimum: 1,
  description:
    'how many times a run may enter this node; bounds a loop through it that no human gate breaks (without it such a loop is warned as loop.unbounded)',
});

const PortList = (description: string) =>
  Type.Array(Identifier('a port name'), { uniqueItems: true, minItems: 1, description });

export const InputSchema = Type.Object(
  {
    name: Type.String({ pattern: PATTERNS.inputName, description: 'the input name, `[a-z][a-z0-9_]*`; appears once' }),
    required: Type.Optional(Type.Boolean({ default: false, description: 'whether a run must be given this input' })),
    type: Type.Optional(StringEnum(INPUT_TYPES, { description: 'the value type; default string' })),
    description: Type.Optional(Type.String({ description: 'what the input is, for the operator' })),
    default: Type.Optional(Type.Unknown({ description: 'the value when none is given; must fit `type`' })),
    one_of: Type.Optional(Type.Array(Type.Unknown(), { description: 'the allowed values; each must fit `type`' })),
    runs: Type.Optional(
      StringEnum(INPUT_RUNS, {
        description:
          'list inputs only: `each` launches one run per item, `together` one run with the whole list; default each for a ticket template\'s `tickets`, else together',
      }),
    ),
  },
  { additionalProperties: false, description: 'an input a run starts from' },
);

export const RoleSlotSchema = Type.Object(
  {
    role: Identifier('the slot name a preset fills with a model; appears once'),
    node: Identifier('the model node this slot fills'),
  },
  { additionalProperties: false, description: 'a slot a preset can fill with a model' },
);

export const HeaderSchema = Type.Object(
  {
    name: Type.String({
      pattern: PATTERNS.templateName,
      description: 'the template name: lowercase letters, digits, dashes; equals the file name without .yaml',
    }),
    purpose: Type.String({ minLength: 1, pattern: '^[^\\n\\r]*\\S[^\\n\\r]*$', description: 'one line for the operator who picks the template' }),
    base: Type.Optional(
      Type.String({ pattern: PATTERNS.templateName, description: 'the template this one is a variant of' }),
    ),
    inputs: Type.Optional(Type.Array(InputSchema, { description: 'what a run starts from' })),
    roles: Type.Optional(Type.Array(RoleSlotSchema, { description: 'slots that presets fill' })),
    writes: Type.Optional(Type.Boolean({ default: false, description: 'true when the run writes to a workspace' })),
    closes_ticket: Type.Optional(Type.Boolean({ default: false, description: 'true when the run closes its ticket' })),
    entry: Identifier("the node the run's first envelope goes to"),
    inlet: Identifier('the inlet of `entry` the first envelope goes to'),
    terminal: Type.Optional(Identifier('the node whose completed invocation ends the run; nothing is wired after it')),
  },
  { additionalProperties: false, description: 'the template header' },
);

export const ModelNodeSchema = Type.Object(
  {
    type: Type.Literal('model', { description: 'a model playing a role' }),
    role: Identifier('a role the library knows (built-in or the operator’s)'),
    profile: StringEnum(Object.keys(PROFILES) as (keyof typeof PROFILES)[], {
      description: 'what the node can touch: ' + Object.entries(PROFILES).map(([p, t]) => `${p} (${t.join(', ')})`).join('; '),
    }),
    model: Type.Optional(Type.String({ pattern: PATTERNS.model, description: 'a model id (claude, grok, …); presets fill it when absent' })),
    prompt: Type.Optional(Type.String({ description: 'text; every {{inputs.X}} must name a declared input' })),
    inlets: Type.Optional(PortList('message inlets; default [start]')),
    outlets: Type.Optional(PortList('outlets; default [done]')),
    when: Type.Optional(
      Type.Object(
        { on_path: Type.String({ pattern: PATTERNS.command, description: 'a bare command name; the node runs only when it is on PATH' }) },
        { additionalProperties: false, description: 'run the node only when a condition holds; a node skipped this way counts as done for a join' },
      ),
    ),
    max_visits: Type.Optional(MaxVisitsSchema),
  },
  { additionalProperties: false, description: 'a model node' },
);

function argumentSchema(kind: 'text' | 'capability' | 'name', description: string): TSchema {
  if (kind === 'capability') return StringEnum(Object.keys(CAPABILITIES), { description });
  if (kind === 'name') return Type.String({ pattern: PATTERNS.templateName, description });
  return Type.String({ description });
}

/** One object schema per builtin: fixed `builtin`, and exactly the arguments it takes. */
export const BUILTIN_NODE_SCHEMAS = Object.fromEntries(
  Object.entries(BUILTINS).map(([name, spec]) => {
    const args: Record<string, TSchema> = {};
    for (const [arg, a] of Object.entries(spec.args)) {
      const s = argumentSchema(a.kind, a.description);
      args[arg] = a.required ? s : Type.Optional(s);
    }
    const ports = `inlets ${spec.inlets.join(', ')}; outlets ${spec.outlets.join(', ')}`;
    const schema = Type.Object(
      {
        type: Type.Literal('builtin', { description: 'one of the known builtins' }),
        builtin: Type.Literal(name, { description: `${spec.description} (${ports})` }),
        ...args,
        max_visits: Type.Optional(MaxVisitsSchema),
      },
      { additionalProperties: false, description: `builtin ${name}: ${spec.description}` },
    );
    return [name, schema];
  }),
) as unknown as Record<BuiltinName, TObject>;

export const ToolNodeSchema = Type.Object(
  {
    type: Type.Literal('tool', { description: 'a tool node: inlet in, outlet out' }),
    tool: StringEnum(Object.keys(TOOLS), { description: 'the tool id; a tool node declares nothing else' }),
  },
  { additionalProperties: false, description: 'a tool node' },
);

export const NodeSchema = Type.Union([ModelNodeSchema, ...Object.values(BUILTIN_NODE_SCHEMAS), ToolNodeSchema], {
  description: 'a node: type model, builtin or tool',
});

export const CordSchema = Type.Object(
  {
    from: Type.String({ pattern: PATTERNS.endpoint, description: '<node>.<outlet>' }),
    to: Type.String({ pattern: PATTERNS.endpoint, description: '<node>.<inlet>' }),
  },
  { additionalProperties: false, description: "a cord from one node's outlet to another's inlet" },
);

export const TemplateSchema = Type.Object(
  {
    template: HeaderSchema,
    version: Type.Integer({ enum: [SUPPORTED_VERSION], description: 'the patch format version; 1' }),
    nodes: Type.Record(Type.String({ pattern: PATTERNS.identifier }), NodeSchema, {
      minProperties: 1,
      maxProperties: LIMITS.nodes,
      additionalProperties: false,
      description: 'node id → node; ids are `[a-z][a-z0-9_]*`',
    }),
    cords: Type.Optional(
      Type.Array(CordSchema, { maxItems: LIMITS.cords, description: 'the wiring; default none' }),
    ),
  },
  { additionalProperties: false, title: 'desk-library template', description: 'a template: one YAML document' },
);

export type TemplateFile = Static<typeof TemplateSchema>;

/** The schema's URL as served (docs/api.md: GET /api/desk/schema/template.json). */
export const TEMPLATE_SCHEMA_ID = 'http://127.0.0.1:8787/api/desk/schema/template.json';

/** Draft-07 JSON Schema of a template file, for yaml-language-server and `desk-library schema`. */
export function templateJsonSchema(): Record<string, unknown> {
  // A JSON round trip drops TypeBox's symbol keys and gives callers a copy they may change.
  const plain = JSON.parse(JSON.stringify(TemplateSchema)) as Record<string, unknown>;
  return { $schema: 'http://json-schema.org/draft-07/schema#', $id: TEMPLATE_SCHEMA_ID, ...plain };
}
