/**
 * The diff of two templates (docs/api.md, diff): a unified text diff and
 * a graph diff (header fields, nodes added/removed/changed field by field,
 * cords added/removed). Format layer: pure, no I/O. It reads both sides with
 * the one validator, whose typed view is best-effort, so an invalid template
 * still diffs as far as it can be read.
 */
import { createTwoFilesPatch } from 'diff';
import type { FieldChange, GraphDiff } from './diff-types.js';
import type { Catalogue, NodeModel, TemplateModel } from './model.js';
import { type Validator, validateTemplate } from './validate.js';

export interface DiffSide {
  name: string;
  source: string;
  /** file label in the unified diff; default `<name>.yaml` */
  label?: string;
  /**
   * The side's typed view when the caller already has it (the library keeps
   * one per entry): at the 128 KiB cap a validation costs tens of ms, the
   * diff itself a few. Default: the side is validated here.
   */
  model?: TemplateModel | null;
}

/** Diffs `a` (before) against `b` (after). Never throws. */
export function diffTemplates(
  a: DiffSide,
  b: DiffSide,
  catalogue: Catalogue,
  /** the validator; a caller that keeps validations (src/library/templates/read.ts) passes a memoised one. Default: validateTemplate */
  validate: Validator = validateTemplate,
): { identical: boolean; unified: string | null; too_different: boolean; graph: GraphDiff } {
  const identical = a.source === b.source;
  const unified = identical
    ? ''
    : lineDiff(a.label ?? `${a.name}.yaml`, b.label ?? `${b.name}.yaml`, a.source, b.source);
  const before = a.model !== undefined ? a.model : validate(a.source, { catalogue }).template;
  const after = b.model !== undefined ? b.model : validate(b.source, { catalogue }).template;
  return { identical, unified, too_different: unified === null, graph: graphDiff(before, after) };
}

/**
 * Bounds of the unified text diff. jsdiff's Myers diff costs about the square
 * of the lines changed (two valid 100 KB templates with different comment
 * lines took seconds, and the whole process, /health included, waited), so a
 * diff that would cost more is not made and the answer says too_different.
 */
export const LINE_DIFF_LIMITS = {
  /**
   * Lines removed plus lines added, both as the linear pre-count and as
   * jsdiff's `maxEditLength`. Past a couple of hundred a line diff is not
   * something anyone reads, and the bound keeps the worst pair at the 128 KiB
   * cap (every line moved) near 20 ms on a loaded 2-core machine (500 took
   * ~130 ms). No wall-clock budget: the same two texts get the same answer on
   * any machine under any load. Default 200.
   */
  changedLines: 200,
} as const;

/** The unified diff, or null when it is over LINE_DIFF_LIMITS. */
export function lineDiff(labelA: string, labelB: string, a: string, b: string): string | null {
  // A linear count first: it refuses the common costly case (many lines that
  // differ) at once, and the same way on every machine.
  if (changedLinesAtLeast(a, b) > LINE_DIFF_LIMITS.changedLines) return null;
  const patch = createTwoFilesPatch(labelA, labelB, a, b, '', '', {
    context: 3,
    maxEditLength: LINE_DIFF_LIMITS.changedLines,
  });
  return patch ?? null;
}

/**
 * A lower bound on the lines a line diff removes plus adds: a line that occurs
 * more often on one side than the other is removed or added at least that
 * many more times, whatever the alignment.
 */
export function changedLinesAtLeast(a: string, b: string): number {
  const counts = new Map<string, number>();
  for (const line of a.split('\n')) counts.set(line, (counts.get(line) ?? 0) + 1);
  for (const line of b.split('\n')) counts.set(line, (counts.get(line) ?? 0) - 1);
  let changed = 0;
  for (const n of counts.values()) changed += Math.abs(n);
  return changed;
}

/** The graph view; a side that could not be read at all counts as empty. */
export function graphDiff(a: TemplateModel | null, b: TemplateModel | null): GraphDiff {
  const header = headerChanges(a, b);

  const na = new Map((a?.nodes ?? []).map((n) => [n.id, n]));
  const nb = new Map((b?.nodes ?? []).map((n) => [n.id, n]));
  const added = [...nb.values()].filter((n) => !na.has(n.id)).map(nodeRef);
  const removed = [...na.values()].filter((n) => !nb.has(n.id)).map(nodeRef);
  const changed: GraphDiff['nodes']['changed'] = [];
  for (const [id, before] of na) {
    const after = nb.get(id);
    if (!after) continue;
    const changes = nodeChanges(before, after);
    if (changes.length) changed.push({ id, changes });
  }

  const key = (c: { from: string; to: string }) => `${c.from}\u0000${c.to}`;
  const ca = new Set((a?.cords ?? []).map(key));
  const cb = new Set((b?.cords ?? []).map(key));
  const cordsAdded = (b?.cords ?? []).filter((c) => !ca.has(key(c))).map(({ from, to }) => ({ from, to }));
  const cordsRemoved = (a?.cords ?? []).filter((c) => !cb.has(key(c))).map(({ from, to }) => ({ from, to }));

  return {
    header,
    nodes: { added, removed, changed },
    cords: { added: dedupe(cordsAdded, key), removed: dedupe(cordsRemoved, key) },
  };
}

/**
 * The fields a diff compares are the parsed model's own, not a fixed list:
 * every key the header or a node has on either side, so a field the format
 * gains (`max_visits`, a node's `kit`) shows in the diff without a change
 * here. Left out: what says where a thing is written rather than what it is
 * (`line`: moving a node is not changing it) and a node's `id` (its key).
 * A field absent on a side is null there, or the empty list its model
 * defaults to, so absent and empty read the same.
 */
const NOT_FIELDS = new Set(['id', 'line']);
const EMPTY_LISTS = new Set(['inputs', 'roles', 'touches', 'inlets', 'outlets']);

/** The order fields are listed in, as a template is read: known ones in the format's order, any other after them. */
const ORDER = [
  ...['name', 'purpose', 'base', 'inputs', 'roles', 'writes', 'closes_ticket', 'entry', 'inlet', 'terminal', 'version'],
  ...['type', 'role', 'model', 'profile', 'prompt', 'when', 'builtin', 'args', 'tool', 'max_visits', 'kit', 'touches', 'inlets', 'outlets'],
];
const rank = (k: string) => (ORDER.includes(k) ? ORDER.indexOf(k) : ORDER.length);

function fieldsOf(a: object | undefined, b: object | undefined): string[] {
  const keys = new Set<string>();
  for (const o of [a, b]) for (const [k, v] of Object.entries(o ?? {})) if (v !== undefined && !NOT_FIELDS.has(k)) keys.add(k);
  // a stable sort: fields the order does not know keep the order they were met in
  return [...keys].sort((x, y) => rank(x) - rank(y));
}

function fieldValue(o: object | undefined, field: string): unknown {
  const v = (o as Record<string, unknown> | undefined)?.[field];
  return v === undefined ? (EMPTY_LISTS.has(field) ? [] : null) : v;
}

/** Header fields, and the patch `version`, that differ. */
function headerChanges(a: TemplateModel | null, b: TemplateModel | null): FieldChange[] {
  const ha = a ? { ...a.header, version: a.version } : undefined;
  const hb = b ? { ...b.header, version: b.version } : undefined;
  const out: FieldChange[] = [];
  for (const field of fieldsOf(ha, hb)) pushIfChanged(out, field, fieldValue(ha, field), fieldValue(hb, field));
  return out;
}

/** Every field of a node that differs. */
function nodeChanges(a: NodeModel, b: NodeModel): FieldChange[] {
  const out: FieldChange[] = [];
  for (const field of fieldsOf(a, b)) pushIfChanged(out, field, fieldValue(a, field), fieldValue(b, field));
  return out;
}

function nodeRef(n: NodeModel) {
  return { id: n.id, type: n.type, line: n.line ?? null };
}

function pushIfChanged(out: FieldChange[], field: string, before: unknown, after: unknown): void {
  if (!sameValue(before, after)) out.push({ field, before: before ?? null, after: after ?? null });
}

/** Structural equality of plain JSON-like values, independent of key order. */
export function sameValue(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return false;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((v, i) => sameValue(v, y[i]));
  const ox = x as Record<string, unknown>;
  const oy = y as Record<string, unknown>;
  const kx = Object.keys(ox).filter((k) => ox[k] !== undefined);
  const ky = Object.keys(oy).filter((k) => oy[k] !== undefined);
  return kx.length === ky.length && kx.every((k) => Object.hasOwn(oy, k) && sameValue(ox[k], oy[k]));
}

function dedupe<T>(list: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return list.filter((t) => {
    const k = key(t);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
