/**
 * The validator's walk over the yaml AST: positions, JSON Pointer paths and
 * the structural checks read from the TypeBox schema (allowed keys, required
 * keys, JSON types). Rules that need more than structure live in header.ts,
 * nodes.ts, cords.ts and graph.ts and report through the same `Walk`.
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import { type Alias, type Document, isAlias, isMap, isScalar, isSeq, type LineCounter, type Node, type Pair, type YAMLMap } from 'yaml';
import { pointer, type Problem, type ProblemCode, problem } from './problems.js';
import { positionAt } from './read.js';
import { PATTERN_HINTS } from './schema.js';

export type Path = readonly (string | number)[];

/** A node as the walk sees it: resolved past aliases, or null/undefined when absent. */
export type YNode = Node | null | undefined;

interface Pending {
  /** source offset, -1 when the problem has no position */
  offset: number;
  problem: Problem;
}

export class Walk {
  readonly pending: Pending[] = [];

  constructor(
    readonly doc: Document.Parsed,
    readonly lineCounter: LineCounter,
    /** the reader's alias → target map; `Alias.resolve` walks the whole document per call */
    readonly aliasTargets?: ReadonlyMap<Alias, Node>,
  ) {}

  /** Follows an alias to its anchored node (the reader has capped and checked aliases). */
  resolve(node: unknown): YNode {
    if (isAlias(node)) return this.aliasTargets?.get(node) ?? node.resolve(this.doc) ?? null;
    return node as YNode;
  }

  /** Reports a problem at the start of `at` (a node, or an offset). */
  report(code: ProblemCode, message: string, path: Path, at?: YNode | number): void {
    const offset = typeof at === 'number' ? at : (at?.range?.[0] ?? -1);
    const found = offset >= 0 ? positionAt(this.lineCounter, offset) : undefined;
    // An empty source has no line at all; the problem then has no position.
    const pos = found && found.line >= 1 ? found : undefined;
    this.pending.push({ offset, problem: problem(code, message, pointer(path), pos) });
  }

  line(at: YNode): number | undefined {
    const offset = at?.range?.[0];
    return offset === undefined ? undefined : positionAt(this.lineCounter, offset).line;
  }
}

/** A mapping read through its schema: the first occurrence of each known key. */
export interface Entries {
  map: YAMLMap;
  /** value nodes by key, aliases resolved; only keys the schema has whose value has the right JSON type */
  values: Map<string, YNode>;
  /** key nodes by key (every known key present, even with a wrong-typed value) */
  keys: Map<string, Node>;
  /** keys the schema requires that are absent */
  missing: string[];
}

export interface MapOptions {
  /** the code for a key the schema does not have; default key.unknown */
  unknownCode?: ProblemCode;
  /** what the mapping is, for messages, e.g. "node 'plan'" */
  what: string;
  /**
   * The code for a value outside its schema's `enum`/`pattern`, by key;
   * null when the caller checks that key itself. Default type.mismatch.
   */
  valueCodes?: Record<string, ProblemCode | null>;
}

/** The JSON type a schema expects, or undefined when any value is allowed. */
export function jsonType(schema: TSchema): string | undefined {
  const t = (schema as { type?: unknown }).type;
  return typeof t === 'string' ? t : undefined;
}

/** The JSON type of a yaml value node, 'null' for an empty value. */
export function typeOf(node: YNode): string {
  if (node === null || node === undefined) return 'null';
  if (isMap(node)) return 'object';
  if (isSeq(node)) return 'array';
  if (isScalar(node)) {
    const v = node.value;
    if (v === null) return 'null';
    if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
    if (typeof v === 'string' || typeof v === 'boolean') return typeof v;
  }
  return 'unknown';
}

/** Whether a value of JSON type `actual` satisfies the schema's `expected` type. */
export function fits(expected: string | undefined, actual: string): boolean {
  return expected === undefined || expected === actual || (expected === 'number' && actual === 'integer');
}

const A: Record<string, string> = { string: 'a string', boolean: 'true or false', integer: 'an integer', number: 'a number', array: 'a list', object: 'a mapping', null: 'empty', unknown: 'an unsupported value' };
export const describeType = (t: string): string => A[t] ?? t;

/**
 * Checks a mapping against an object schema: reports `doc.not_mapping`,
 * unknown keys, wrong JSON types and values outside the schema's `enum` or
 * `pattern`, and returns what it read. Later occurrences of a duplicate key
 * are skipped: the reader reports them. `node` may be an offset, for an
 * absent node that must be reported somewhere.
 */
export function checkMap(w: Walk, node: YNode | number, schema: TObject, path: Path, opts: MapOptions): Entries | null {
  if (!isMap(node)) {
    w.report('doc.not_mapping', `${opts.what} must be a mapping of keys to values; write it as \`key: value\` lines`, path, node);
    return null;
  }
  const values = new Map<string, YNode>();
  const keys = new Map<string, Node>();
  const empty = new Set<string>();
  const props = schema.properties;
  const required = schema.required ?? [];
  for (const pair of node.items as Pair<unknown, unknown>[]) {
    const keyNode = w.resolve(pair.key);
    const key = isScalar(keyNode) ? String(keyNode.value) : undefined;
    const at = keyNode ?? (pair.value as YNode);
    if (key === undefined || !Object.hasOwn(props, key)) {
      const shown = key === undefined ? 'a key that is not a plain name' : `key '${key}'`;
      w.report(opts.unknownCode ?? 'key.unknown', `${opts.what} has ${shown}, which the format does not have there; remove it (known keys: ${Object.keys(props).join(', ')})`, [...path, key ?? ''], at);
      continue;
    }
    if (keys.has(key)) continue;
    keys.set(key, keyNode as Node);
    const value = w.resolve(pair.value);
    const prop = props[key] as TSchema;
    const expected = jsonType(prop);
    const actual = typeOf(value);
    if (!fits(expected, actual)) {
      // An empty value for a required key reads as absent, so the specific "missing" code applies.
      if (actual === 'null' && required.includes(key)) {
        empty.add(key);
        continue;
      }
      w.report('type.mismatch', `${opts.what}: \`${key}\` must be ${describeType(expected ?? '')}, not ${describeType(actual)}; change its value`, [...path, key], value ?? keyNode);
      continue;
    }
    values.set(key, value);
    const code = opts.valueCodes?.[key] === undefined ? 'type.mismatch' : opts.valueCodes[key];
    if (code) checkValue(w, value, prop, [...path, key], `${opts.what}: \`${key}\``, code);
  }
  const missing = required.filter((k) => !keys.has(k) || empty.has(k));
  return { map: node, values, keys, missing };
}

/** Checks a string scalar against a schema's `enum` and `pattern`; returns false when it reported. */
export function checkValue(w: Walk, value: YNode, schema: TSchema, path: Path, what: string, code: ProblemCode): boolean {
  const s = str(value);
  if (s === undefined) return true;
  const { enum: allowed, pattern } = schema as { enum?: unknown[]; pattern?: string };
  if (allowed && !allowed.includes(s)) {
    w.report(code, `${what} is '${s}', which is not one of ${allowed.join(', ')}; use one of them`, path, value);
    return false;
  }
  if (pattern && !patternRegExp(pattern).test(s)) {
    w.report(code, `${what} is '${s}', which does not match ${pattern}; ${PATTERN_HINTS[pattern] ?? 'change it'}`, path, value);
    return false;
  }
  return true;
}

const regexps = new Map<string, RegExp>();
/** Compiled schema patterns, cached: the walk must not recompile per value. */
export function patternRegExp(pattern: string): RegExp {
  let r = regexps.get(pattern);
  if (!r) {
    r = new RegExp(pattern, 'u');
    regexps.set(pattern, r);
  }
  return r;
}

/** The string value of a scalar node, or undefined. */
export function str(node: YNode): string | undefined {
  return isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
}
