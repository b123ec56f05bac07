/**
 * What completion and hover need to know about the template being typed: its
 * node ids with their type and ports, its inputs, its entry. Read with yaml's
 * lenient parser, which still answers for a document with errors; when even
 * that fails (mid-keystroke), the last good reading stands, so a half-typed
 * line never empties the lists.
 */
import { parseDocument } from 'yaml';
import { BUILTINS, isBuiltin } from '../template/catalog/builtins.js';

export interface NodeFacts {
  type: string | undefined;
  builtin: string | undefined;
  inlets: readonly string[];
  outlets: readonly string[];
}

export interface InputFacts {
  name: string;
  type: string | undefined;
  required: boolean;
  description: string | undefined;
}

export interface Facts {
  nodes: Map<string, NodeFacts>;
  inputs: InputFacts[];
  entry: string | undefined;
}

/**
 * One editor's reading of its text (editor-setup.ts makes one per editor,
 * for its completion and hover): the same text is read once, and a text
 * that cannot be read keeps the last good reading.
 */
export class FactsReader {
  private last: { text: string; facts: Facts } = { text: '', facts: { nodes: new Map(), inputs: [], entry: undefined } };

  /** The facts of `text`. */
  of(text: string): Facts {
    if (text === this.last.text) return this.last.facts;
    const facts = read(text);
    if (facts) this.last = { text, facts };
    return this.last.facts;
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
const record = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** Ports as the validator assigns them (docs/format.md): a model's default inlet start and outlet done; a tool's in and out. */
export function portsOf(node: Record<string, unknown>): { inlets: readonly string[]; outlets: readonly string[] } {
  const type = str(node.type);
  const builtin = str(node.builtin);
  if (type === 'builtin' && builtin && isBuiltin(builtin)) return { inlets: BUILTINS[builtin].inlets, outlets: BUILTINS[builtin].outlets };
  if (type === 'tool') return { inlets: ['in'], outlets: ['out'] };
  if (type === 'model') return { inlets: strings(node.inlets) ?? ['start'], outlets: strings(node.outlets) ?? ['done'] };
  return { inlets: [], outlets: [] };
}

function read(text: string): Facts | null {
  let js: unknown;
  try {
    // the editor holds at most the 128 KiB the reader accepts; yaml's alias cap keeps a bomb cheap
    js = parseDocument(text, { prettyErrors: false, uniqueKeys: false }).toJS({ maxAliasCount: 64 });
  } catch {
    return null;
  }
  const root = record(js);
  if (!root) return null;
  const nodes = new Map<string, NodeFacts>();
  for (const [id, v] of Object.entries(record(root.nodes) ?? {})) {
    const n = record(v) ?? {};
    nodes.set(id, { type: str(n.type), builtin: str(n.builtin), ...portsOf(n) });
  }
  const header = record(root.template) ?? {};
  const inputs: InputFacts[] = [];
  for (const v of Array.isArray(header.inputs) ? header.inputs : []) {
    const i = record(v);
    const name = str(i?.name);
    if (i && name) inputs.push({ name, type: str(i.type), required: i.required === true, description: str(i.description) });
  }
  return { nodes, inputs, entry: str(header.entry) };
}
