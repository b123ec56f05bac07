/**
 * Completion for the template editor, from the format's own catalogues and
 * schema: the keys each mapping allows, node `type`s, builtins, profiles,
 * tools, capabilities, roles and templates the library knows, node ids and
 * their ports in cords and the header, and `{{inputs.…}}` names in prompts.
 */
import type { Completion, CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete';
import { BUILTINS } from '../template/catalog/builtins.js';
import { CAPABILITIES } from '../template/catalog/capabilities.js';
import { PROFILES } from '../template/catalog/profiles.js';
import { TOOLS } from '../template/catalog/tools.js';
import { inputRefAt, type Spot, spotAt } from './editor-context.js';
import { type Facts, FactsReader } from './editor-facts.js';
import { schemaAt, schemaValues } from './editor-schema.js';

/** Names only the library knows: roles (built-in and the operator's) and templates (for `base`). */
export interface LibraryNames {
  roles: readonly string[];
  templates: readonly string[];
}

const NODE_TYPES: Completion[] = [
  { label: 'model', type: 'enum', info: 'a model playing a role, with a profile of what it can touch' },
  { label: 'builtin', type: 'enum', info: 'one of the builtin nodes: gates, checks, landing, loops' },
  { label: 'tool', type: 'enum', info: 'one tool call: inlet in, outlet out' },
];

const ports = (spec: { inlets: readonly string[]; outlets: readonly string[] }) =>
  `in: ${spec.inlets.join(', ') || '—'} · out: ${spec.outlets.join(', ') || '—'}`;

/** `reader` is the editor's own (its last good reading stands while a line is half typed). */
export function templateCompletion(names: () => Promise<LibraryNames>, reader: FactsReader = new FactsReader()): CompletionSource {
  return async (ctx: CompletionContext): Promise<CompletionResult | null> => {
    const line = ctx.state.doc.lineAt(ctx.pos);
    const before = line.text.slice(0, ctx.pos - line.from);
    const text = ctx.state.doc.toString();

    const ref = inputRefAt(before);
    if (ref !== null) {
      return {
        from: ctx.pos - ref.length,
        options: reader.of(text).inputs.map((i) => ({ label: i.name, type: 'variable', detail: i.type ?? 'string', info: i.description })),
        validFor: /^[a-z0-9_]*$/,
      };
    }

    const spot = spotAt(text, ctx.pos);
    // only on request (Ctrl+Space) or once something is typed, so an empty line does not pop a list
    if (!ctx.explicit && spot.prefix === '' && !(spot.kind === 'value' && /:\s$/.test(before))) return null;
    if (spot.kind === 'scalar') return null;
    // reading the facts parses the whole text (a long task at the size cap): only once options are wanted
    const facts = reader.of(text);
    const options = spot.kind === 'key' ? keyOptions(spot, facts) : await valueOptions(spot, facts, names);
    if (options.length === 0) return null;
    return { from: spot.from, options, validFor: /^[\w.-]*$/ };
  };
}

function keyOptions(spot: Spot, facts: Facts): Completion[] {
  const s = schemaAt(spot.path, facts);
  if (!s?.properties) return [];
  const taken = new Set(spot.siblings);
  return Object.entries(s.properties)
    .filter(([k]) => !taken.has(k))
    .map(([k, p]) => ({
      label: k,
      type: 'property',
      detail: s.required?.includes(k) ? 'required' : undefined,
      info: p.description,
      apply: `${k}: `,
      // required keys first: they are what the mapping still needs
      boost: s.required?.includes(k) ? 1 : 0,
    }));
}

async function valueOptions(spot: Spot, facts: Facts, names: () => Promise<LibraryNames>): Promise<Completion[]> {
  const key = spot.key ?? '';
  const [top, , third] = spot.path;
  const ids = [...facts.nodes.keys()];
  if (top === 'nodes' && spot.path.length === 2) {
    if (key === 'type') return NODE_TYPES;
    if (key === 'builtin') return Object.entries(BUILTINS).map(([b, spec]) => ({ label: b, type: 'enum', detail: ports(spec), info: spec.description }));
    if (key === 'profile') return Object.entries(PROFILES).map(([p, touches]) => ({ label: p, type: 'enum', detail: touches.join(', ') }));
    if (key === 'tool') return Object.entries(TOOLS).map(([t, what]) => ({ label: t, type: 'enum', info: what }));
    if (key === 'over') return Object.entries(CAPABILITIES).map(([c, what]) => ({ label: c, type: 'enum', info: what }));
    if (key === 'role') return (await safe(names)).roles.map((r) => ({ label: r, type: 'class' }));
  }
  if (top === 'template' && spot.path.length === 1) {
    if (key === 'entry' || key === 'terminal') return ids.map((id) => nodeOption(id, facts));
    if (key === 'inlet') return (facts.entry ? facts.nodes.get(facts.entry)?.inlets ?? [] : []).map((p) => ({ label: p, type: 'constant' }));
    if (key === 'base') return (await safe(names)).templates.map((t) => ({ label: t, type: 'class' }));
  }
  if (top === 'template' && third === '*' && spot.path[1] === 'roles' && key === 'node') {
    return ids.filter((id) => facts.nodes.get(id)?.type === 'model').map((id) => nodeOption(id, facts));
  }
  if (top === 'cords' && (key === 'from' || key === 'to')) {
    const out: Completion[] = [];
    for (const [id, n] of facts.nodes) {
      for (const p of key === 'from' ? n.outlets : n.inlets) out.push({ label: `${id}.${p}`, type: 'constant', detail: n.builtin ?? n.type });
    }
    return out;
  }
  return schemaValues(spot.path, key, facts).map((v) => ({ label: v.value, type: 'enum', info: v.description }));
}

function nodeOption(id: string, facts: Facts): Completion {
  const n = facts.nodes.get(id);
  return { label: id, type: 'variable', detail: n?.builtin ?? n?.type };
}

/** The library's names, or none when the service cannot say: completion still offers the rest. */
async function safe(names: () => Promise<LibraryNames>): Promise<LibraryNames> {
  try {
    return await names();
  } catch {
    return { roles: [], templates: [] };
  }
}
