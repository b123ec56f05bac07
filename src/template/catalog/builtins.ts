/**
 * The builtin nodes (docs/format.md, Builtin nodes): fixed ports and the arguments
 * each takes. The validator, the JSON Schema, the card and docs/format.md all
 * read this table, so a new builtin is added here and nowhere else.
 */
export interface BuiltinArgument {
  /** true when the node must declare it */
  required: boolean;
  /** `text` is free text; `capability` must name one of CAPABILITIES; `name` is a short identifier */
  kind: 'text' | 'capability' | 'name';
  description: string;
}

export interface BuiltinSpec {
  description: string;
  inlets: readonly string[];
  outlets: readonly string[];
  args: Readonly<Record<string, BuiltinArgument>>;
}

export const BUILTINS = {
  human_gate: {
    description: 'a person approves or rejects what reaches it',
    inlets: ['in'],
    outlets: ['approved', 'rejected'],
    args: { prompt: { required: false, kind: 'text', description: 'what the person is asked' } },
  },
  workspace_land: {
    description: 'lands the workspace onto the project',
    inlets: ['in'],
    outlets: ['landed', 'conflict'],
    args: {},
  },
  capability_assert: {
    description: 'holds only when the run has proved a capability',
    inlets: ['in'],
    outlets: ['held', 'failed'],
    args: { over: { required: true, kind: 'capability', description: 'the capability to prove' } },
  },
  checks: {
    description: "runs the project's checks",
    inlets: ['in'],
    outlets: ['passed', 'failed'],
    args: {},
  },
  citation_check: {
    description: "checks every claim's citations against the pages fetched",
    inlets: ['in'],
    outlets: ['passed', 'failed'],
    args: {},
  },
  save_document: {
    description: 'saves what reaches it as a document',
    inlets: ['in'],
    outlets: ['saved'],
    args: { document: { required: false, kind: 'name', description: 'the name to save under' } },
  },
  for_each: {
    description: 'sends each item of a list in turn; next asks for the following one',
    inlets: ['items', 'next'],
    outlets: ['item', 'done'],
    args: {},
  },
  join: {
    // research relies on this: its grok branch is skipped when grok is not on PATH
    description:
      "waits for every cord into it whose source ran, then sends what arrived on together; a source skipped by its `when:` counts as done, so the join goes on without it",
    inlets: ['in'],
    outlets: ['out'],
    args: {},
  },
  commit: {
    description: 'commits the workspace',
    inlets: ['in'],
    outlets: ['committed'],
    args: {},
  },
} as const satisfies Record<string, BuiltinSpec>;

export type BuiltinName = keyof typeof BUILTINS;

export function isBuiltin(name: string): name is BuiltinName {
  return Object.hasOwn(BUILTINS, name);
}
