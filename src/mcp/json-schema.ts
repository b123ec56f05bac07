/**
 * The JSON Schema handed to MCP (tools/list's inputSchema and outputSchema):
 * the TypeBox schemas of src/schema made self-contained. A client compiles
 * each one on its own — the SDK's Client with Ajv, in listTools — so a
 * `$ref` to a schema it never saw (`Card`, `Problem`) or an `$id` met twice
 * in one document makes it throw. Every `$ref` is inlined and every `$id`
 * dropped; TypeBox's symbol keys go with the JSON round trip.
 */
import type { TSchema } from '@sinclair/typebox';
import { CardSchema } from '../schema/card.js';
import { TemplateDiffSchema } from '../schema/diff.js';
import { ProblemSchema } from '../template/problems.js';

export type JsonSchema = { [key: string]: unknown };

/** The schemas the answers refer to by `$id` (Type.Ref), as the app registers them (src/http/schemas.ts). */
const REFERABLE: readonly TSchema[] = [ProblemSchema, TemplateDiffSchema, CardSchema];

const byId = new Map<string, unknown>(REFERABLE.map((s) => [String(s.$id), JSON.parse(JSON.stringify(s))]));

/** `schema` as one self-contained document: refs inlined, ids dropped. Throws on a ref it cannot resolve (a bug here, caught by the tests). */
export function selfContained(schema: TSchema): JsonSchema {
  return inline(JSON.parse(JSON.stringify(schema)), []) as JsonSchema;
}

function inline(node: unknown, seen: readonly string[]): unknown {
  if (Array.isArray(node)) return node.map((n) => inline(n, seen));
  if (node === null || typeof node !== 'object') return node;
  const o = node as Record<string, unknown>;
  if (typeof o.$ref === 'string') {
    const target = byId.get(o.$ref);
    if (target === undefined) throw new Error(`selfContained: no schema has $id ${o.$ref}`);
    if (seen.includes(o.$ref)) throw new Error(`selfContained: ${o.$ref} refers to itself`);
    const { $ref: _ref, ...rest } = o;
    // the ref's own keywords (a description) stay beside the inlined schema's
    return { ...(inline(target, [...seen, o.$ref]) as Record<string, unknown>), ...(inline(rest, seen) as Record<string, unknown>) };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === '$id') continue;
    out[k] = inline(v, seen);
  }
  return out;
}
