import { h } from './dom.js';
import type { FieldChange } from '../schema/diff.js';
import { isObject, type ItemChange, type Keyed, keyedChanges, same, wordChanges } from './merge-changes.js';

/**
 * A changed field of the graph diff, said as changes a person reads: a list
 * of named things (inputs by name, roles by node) as added / removed /
 * changed with before → after for each differing part; a list of words
 * (touches, outlets) as the words added and removed; a map (a builtin's args)
 * key by key. Anything else is before → after.
 */

/** How the items of a header list are told apart: inputs by name, roles by the node they bind. */
const KEYS: Record<string, string> = { inputs: 'name', roles: 'node' };

export function show(v: unknown): string {
  if (v === null || v === undefined) return '(none)';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

const beforeAfter = (before: unknown, after: unknown) => [h('del', {}, show(before)), ' → ', h('ins', {}, show(after))];

/** An added or removed input or role as one line of its other parts: `required: true, type: list, …` */
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
