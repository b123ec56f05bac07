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
  /** what the node can touch: its profile's touches, or a tool node's tool id */
  touches: string[];
  inlets: string[];
  outlets: string[];
  /** 1-based line of the node's key */
  line?: number;
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
}

/** What the validator checks names against (it does no I/O, so callers gather names first). */
export interface Catalogue {
  /** role names the library knows: built-in and the operator's */
  roles: ReadonlySet<string>;
  /** template names the library holds, for `base` */
  templates: ReadonlySet<string>;
}
