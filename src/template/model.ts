/**
 * The validator's typed view of a template: what it read, with defaults
 * applied (inlets `[start]`, outlets `[done]`, `writes: false`, …). It is built
 * best-effort even when the file has errors, so the card can still draw what
 * is there; anything that could not be read is left out or undefined.
 */
export type InputType = 'string' | 'number' | 'integer' | 'boolean' | 'list';

export interface InputDecl {
  name: string;
  required: boolean;
  type: InputType;
  description?: string;
  default?: unknown;
  one_of?: unknown[];
  /**
   * For a list input, as written: `each` launches one run per item, `together`
   * one run with the whole list. Absent: `each` for a ticket template's
   * `tickets`, else `together` (inputRuns below).
   */
  runs?: InputRuns;
}

export const INPUT_RUNS = ['together', 'each'] as const;
export type InputRuns = (typeof INPUT_RUNS)[number];

/** How a list input launches, with the default applied; undefined for an input that is not a list. */
export function inputRuns(decl: InputDecl, ticketTemplate: boolean): InputRuns | undefined {
  if (decl.type !== 'list') return undefined;
  return decl.runs ?? (ticketTemplate && decl.name === 'tickets' ? 'each' : 'together');
}

export interface HeaderModel {
  name?: string;
  purpose?: string;
  base?: string;
  inputs: InputDecl[];
  roles: { role: string; node: string }[];
  writes: boolean;
  closes_ticket: boolean;
  entry?: string;
  inlet?: string;
  terminal?: string;
}

export type NodeType = 'model' | 'builtin' | 'tool';

export interface NodeModel {
  id: string;
  /** as written; an unknown type is kept so the card can show it */
  type: string;
  role?: string;
  model?: string;
  profile?: string;
  prompt?: string;
  when?: { on_path: string };
  builtin?: string;
  /** builtin arguments as written (`prompt`, `over`, `document`) */
  args?: Record<string, string>;
  tool?: string;
  /** the tools its role's kit grants (the catalogue's `kits`); absent when the role has none */
  kit?: string[];
  /** what the node can touch: its profile's touches and then its role kit's tools, or a tool node's tool id */
  touches: string[];
  /** `max_visits` as written: how many times a run may enter the node (bounds a loop through it) */
  max_visits?: number;
  inlets: string[];
  outlets: string[];
  /** 1-based line of the node's key */
  line?: number;
}

/**
 * What a node is, as the card and a launch's preview both show it first:
 * its id, type, role, model, profile, builtin and tool, each null when the
 * node has none. The two add what each view needs after these.
 */
export function nodeIdentity(n: NodeModel) {
  return {
    id: n.id,
    type: n.type,
    role: n.role ?? null,
    model: n.model ?? null,
    profile: n.profile ?? null,
    builtin: n.builtin ?? null,
    tool: n.tool ?? null,
  };
}

export interface CordModel {
  from: string;
  to: string;
  line?: number;
}

export interface TemplateModel {
  header: HeaderModel;
  version?: number;
  nodes: NodeModel[];
  cords: CordModel[];
  /** closes_ticket: true and a required `tickets` input, read from the declaration (docs/format.md, The header) */
  ticket: boolean;
  /** the loops no human gate breaks (loops.ts), each with its bounds; empty when a cap was hit */
  loops: LoopModel[];
}

/**
 * A loop: a strongly connected part of the graph once human gates and the
 * cords into a `for_each`'s `next` are set aside (those passes are bounded by
 * a person or by the list). `cycle` is one cycle through it, first node
 * repeated at the end (`work → checks → work`); `bounds` the nodes in it that
 * declare `max_visits`. A loop with a cycle that passes no bound gets
 * `loop.unbounded`, and `cycle` is that one.
 */
export interface LoopModel {
  cycle: string[];
  nodes: string[];
  bounds: { node: string; max_visits: number }[];
  /** every cycle in it passes a node with `max_visits` */
  bounded: boolean;
}

/**
 * What the validator checks names against (it does no I/O, so callers gather
 * names first). It is asked only through CatalogueLookups (lookups.ts), so a
 * validation's `refs` say every name it depended on.
 */
export interface Catalogue {
  /** role names the library knows: built-in and the operator's */
  roles: ReadonlySet<string>;
  /** template names the library holds, for `base` */
  templates: ReadonlySet<string>;
  /**
   * The tools each role's kit.json grants, by role name (a role with no kit is
   * absent). What a kit grants, a node playing the role can touch: the card
   * shows it and the ticket-mutation rule counts it. Optional so a caller
   * that knows no kits (a test, a bare CLI check) still validates; without
   * it a kit grants nothing. Only `get` is asked; the validator asks every
   * question through lookups.ts, which writes down what it was told.
   */
  kits?: Pick<ReadonlyMap<string, readonly string[]>, 'get'>;
}
