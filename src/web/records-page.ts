/**
 * What the Proposals and Launches views share around their records: the
 * page — the pending ones drawn in full (the first SHOWN), the rest
 * counted, then the decided ones as rows — and a decided row's line.
 * Each view brings its own words, articles and row contents.
 */
import { call } from './api.js';
import { h } from './dom.js';

/** How many pending records are drawn in full; the rest are counted. */
export const SHOWN = 20;

/** The pending and the decided summaries of `/proposals` or `/launches`, as the list answers them under `key`. */
export async function pendingAndDecided<L, K extends keyof L>(path: '/proposals' | '/launches', key: K): Promise<{ waiting: L[K]; decided: L[K] }> {
  const [pending, decided] = await Promise.all([call<L>('GET', `${path}?status=pending`), call<L>('GET', `${path}?status=decided`)]);
  return { waiting: pending.body[key], decided: decided.body[key] };
}

export interface RecordsPage {
  /** the view's class and its crumb: `proposals`, `launches` */
  kind: string;
  title: string;
  pending: number;
  /** the sentence above the pending ones, and the one when none waits */
  intro: string;
  none: string;
  articles: HTMLElement[];
  /** the decided list: its heading's id, its name, its rows */
  decided: { id: string; label: string; rows: HTMLElement[] };
}

export function recordsPage(o: RecordsPage): HTMLElement {
  return h(
    'div',
    { class: o.kind },
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Library'), ` / ${o.kind}`),
    h('h2', {}, `${o.title} `, h('span', { class: 'count' }, `${o.pending} pending`)),
    o.pending ? h('p', {}, o.intro) : h('p', { class: 'note' }, o.none),
    o.articles,
    o.pending > SHOWN ? h('p', { class: 'note' }, `${o.pending - SHOWN} more are waiting; decide these first.`) : null,
    o.decided.rows.length
      ? h(
          'section',
          { 'aria-labelledby': o.decided.id },
          h('h3', { id: o.decided.id }, 'Decided'),
          h('ul', { class: 'rows', 'aria-label': o.decided.label }, o.decided.rows),
        )
      : null,
  );
}

/** A decided record's row: its name and decision, who decided and when, then what the view adds. */
export function decidedRow(
  r: { id: string; status: string; decided_at: string | null; decided_by: string | null },
  name: HTMLElement,
  tag: HTMLElement,
  ...after: (HTMLElement | null)[]
): HTMLElement {
  return h(
    'li',
    { class: 'row', 'data-id': r.id, 'data-status': r.status },
    h(
      'div',
      { class: 'row-main' },
      name,
      tag,
      r.decided_at ? h('span', { class: 'hint' }, `${r.decided_by ? `by ${r.decided_by}, ` : ''}${new Date(r.decided_at).toLocaleString()}`) : null,
    ),
    ...after,
  );
}
