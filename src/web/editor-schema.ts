/**
 * The template's own JSON Schema (src/template/schema.ts, the one the
 * validator reads and GET /api/desk/schema/template.json serves), walked
 * along a path of keys for completion and hover: which keys a mapping
 * allows, which are required, what each means, what values an enum takes.
 */
import { TemplateSchema } from '../template/schema.js';
import type { Facts } from './editor-facts.js';

/** The parts of a JSON Schema object this walk reads. */
export interface Json {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  description?: string;
  properties?: Record<string, Json>;
  patternProperties?: Record<string, Json>;
  required?: string[];
  items?: Json;
  anyOf?: Json[];
}

const ROOT = TemplateSchema as unknown as Json;

/** The schema of the mapping (or list, or value) at `path`; `*` steps into a list's items. */
export function schemaAt(path: readonly string[], facts: Facts): Json | undefined {
  let s: Json | undefined = ROOT;
  for (let i = 0; i < path.length && s; i++) {
    s = choose(s, path.slice(0, i), facts);
    const seg = path[i]!;
    if (seg === '*') s = s.items;
    else if (s.properties && Object.hasOwn(s.properties, seg)) s = s.properties[seg];
    else if (s.patternProperties) s = Object.values(s.patternProperties)[0];
    else s = undefined;
  }
  return s && choose(s, path, facts);
}

/**
 * A node's schema is a union (model, one per builtin, tool): pick the member
 * that fits the node as typed so far, or merge them while `type` is unset.
 */
function choose(s: Json, path: readonly string[], facts: Facts): Json {
  if (!s.anyOf) return s;
  const node = path.length === 2 && path[0] === 'nodes' ? facts.nodes.get(path[1]!) : undefined;
  const fits = s.anyOf.filter(
    (m) =>
      (!node?.type || m.properties?.type?.const === node.type) &&
      (node?.type !== 'builtin' || !node.builtin || m.properties?.builtin?.const === node.builtin),
  );
  const members = fits.length ? fits : s.anyOf;
  if (members.length === 1) return members[0]!;
  const properties: Record<string, Json> = {};
  for (const m of members) for (const [k, v] of Object.entries(m.properties ?? {})) properties[k] ??= v;
  // only keys every member requires are required of the merge
  const required = (members[0]!.required ?? []).filter((k) => members.every((m) => m.required?.includes(k)));
  return { type: 'object', properties, required, description: s.description };
}

/** What a key means at `path`, and whether the mapping requires it. */
export function keyInfo(path: readonly string[], key: string, facts: Facts): { description: string | undefined; required: boolean } | null {
  const s = schemaAt(path, facts);
  const p = s?.properties?.[key];
  if (!s || !p) return null;
  return { description: p.description, required: s.required?.includes(key) ?? false };
}

/** The values a key takes when its schema lists them (an enum, a boolean). */
export function schemaValues(path: readonly string[], key: string, facts: Facts): { value: string; description?: string }[] {
  const p = schemaAt(path, facts)?.properties?.[key];
  if (!p) return [];
  if (p.enum) return p.enum.map((v) => ({ value: String(v) }));
  if (p.const !== undefined) return [{ value: String(p.const), description: p.description }];
  if (p.type === 'boolean') return [{ value: 'true' }, { value: 'false' }];
  return [];
}
