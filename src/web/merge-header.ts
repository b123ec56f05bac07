import { h } from './dom.js';
import type { FieldChange } from '../schema/diff.js';

/**
 * A changed field of the graph diff, said as changes a person reads: a list
 * of named things (inputs by name, roles by node) as added / removed /
 * changed with before → after for each differing part; a list of words
 * (touches, outlets) as the words added and removed; a map (a builtin's args)
 * key by key. Anything else is before → after.
 */

type Keyed = Record<string, unknown>;

export interface ItemChange {
  kind: 'added' | 'removed' | 'changed';
  key: string;
  /** the item as added or removed */
  item?: unknown;
  /** for a changed item: its parts that differ */
  parts?: { part: string; before: unknown; after: unknown }[];
}

/** How the items of a header list are told apart: inputs by name, roles by the node they bind. */
const KEYS: Record<string, string> = { inputs: 'name', roles: 'node' };

function isObject(v: unknown): v is Keyed {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function same(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((v, i) => same(v, y[i]));
  const a = x as Keyed;
  const b = y as Keyed;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

/** Changes between two lists of objects told apart by `key`; null when either side is not such a list. */
export function keyedChanges(before: unknown, after: unknown, key: string): ItemChange[] | null {
  const list = (v: unknown) => (v === null ? [] : Array.isArray(v) && v.every((i) => isObject(i) && typeof i[key] === 'string') ? (v as Keyed[]) : null);
  const a = list(before);
  const b = list(after);
  if (!a || !b) return null;
  const am = new Map(a.map((i) => [i[key] as string, i]));
  const bm = new Map(b.map((i) => [i[key] as string, i]));
  const out: ItemChange[] = [];
  for (const [k, i] of bm) if (!am.has(k)) out.push({ kind: 'added', key: k, item: i });
  for (const [k, i] of am) if (!bm.has(k)) out.push({ kind: 'removed', key: k, item: i });
  for (const [k, x] of am) {
    const y = bm.get(k);
    if (!y || same(x, y)) continue;
    const names = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((p) => p !== key && !same(x[p], y[p]));
    out.push({ kind: 'changed', key: k, parts: names.map((p) => ({ part: p, before: x[p] ?? null, after: y[p] ?? null })) });
  }
  return out;
}

/** Words added and removed between two lists of strings; null when either is not one. */
export function wordChanges(before: unknown, after: unknown): { added: string[]; removed: string[] } | null {
  const list = (v: unknown) => (v === null ? [] : Array.isArray(v) && v.every((i) => typeof i === 'string') ? (v as string[]) : null);
  const a = list(before);
  const b = list(after);
  if (!a || !b) return null;
  return { added: b.filter((w) => !a.includes(w)), removed: a.filter((w) => !b.includes(w)) };
}

export function show(v: unknown): string {
  if (v === null || v === undefined) return '(none)';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

const beforeAfter = (before: unknown, after: unknown) => [h('del', {}, show(before)), ' → ', h('ins', {}, show(after))];

/** One input or role as a line: `tickets` list, required, … */
function itemLine(item: unknown, key: string): string {
  if (!isObject(item)) return show(item);
  return Object.entries(item)
    .filter(([k, v]) => k !== key && v !== undefined)
    .map(([k, v]) => `${k}: ${show(v)}`)
    .join(', ');
}

function itemChangeView(c: ItemChange, key: string, noun: string): HTMLElement {
  const name = h('code', {}, c.key);
  if (c.kind === 'changed') {
    return h(
      'li',
      { class: 'gd-change', 'data-change': 'changed', 'data-key': c.key },
      h('span', { class: 'gd-kind' }, 'changed'),
      ` ${noun} `,
      name,
      h('ul', {}, (c.parts ?? []).map((p) => h('li', {}, h('code', {}, p.part), ': ', ...beforeAfter(p.before, p.after)))),
    );
  }
  const detail = itemLine(c.item, key);
  return h(
    'li',
    { class: c.kind === 'added' ? 'gd-add' : 'gd-del', 'data-change': c.kind, 'data-key': c.key },
    h('span', { class: 'gd-kind' }, c.kind),
    ` ${noun} `,
    name,
    detail ? ` (${detail})` : '',
  );
}

/** One changed field, as a list of its changes where it is a list or a map. */
export function fieldChangeView(c: FieldChange): HTMLElement {
  const key = KEYS[c.field];
  const items = key ? keyedChanges(c.before, c.after, key) : null;
  if (items && key) {
    const noun = c.field === 'inputs' ? 'input' : c.field === 'roles' ? 'role for node' : 'item';
    return h(
      'span',
      { class: 'gd-field', 'data-field': c.field },
      h('code', {}, c.field),
      ':',
      h('ul', { class: 'gd-items' }, items.map((i) => itemChangeView(i, key, noun))),
    );
  }
  const words = wordChanges(c.before, c.after);
  if (words) {
    return h(
      'span',
      { class: 'gd-field', 'data-field': c.field },
      h('code', {}, c.field),
      ':',
      h(
        'ul',
        { class: 'gd-items' },
        words.added.map((w) => h('li', { class: 'gd-add', 'data-change': 'added', 'data-key': w }, h('span', { class: 'gd-kind' }, 'added'), ' ', h('code', {}, w))),
        words.removed.map((w) => h('li', { class: 'gd-del', 'data-change': 'removed', 'data-key': w }, h('span', { class: 'gd-kind' }, 'removed'), ' ', h('code', {}, w))),
      ),
    );
  }
  if ((isObject(c.before) || c.before === null) && (isObject(c.after) || c.after === null) && (c.before || c.after)) {
    const a = (c.before ?? {}) as Keyed;
    const b = (c.after ?? {}) as Keyed;
    const parts = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((p) => !same(a[p], b[p]));
    return h(
      'span',
      { class: 'gd-field', 'data-field': c.field },
      h('code', {}, c.field),
      ':',
      h('ul', { class: 'gd-items' }, parts.map((p) => h('li', { 'data-key': p }, h('code', {}, p), ': ', ...beforeAfter(a[p] ?? null, b[p] ?? null)))),
    );
  }
  return h('span', { class: 'gd-field', 'data-field': c.field }, h('code', {}, c.field), ': ', ...beforeAfter(c.before, c.after));
}
