import { h } from './dom.js';
import { drawGraph } from './graph-svg.js';
import { type CompareViews, compareView } from './merge-compare.js';
import { fieldChangeView } from './merge-header.js';
import type { Card } from '../schema/card.js';
import type { GraphDiff, TemplateDiff } from '../schema/diff.js';

/** The two texts a diff compares, when the page has them: then the text diff is a merge view, else the service's unified text. */
export interface DiffSources {
  before: string;
  after: string;
  beforeLabel: string;
  afterLabel: string;
}

/** A diff (GET …/diff) as a graph diff (changed nodes marked on the drawn graph) and as text. */
/** With `sources`, the text is compared in a view kept in `views` (the template page's). */
export function diffView(diff: TemplateDiff, current: Card | null, sources?: DiffSources, views?: CompareViews): HTMLElement {
  if (diff.identical) {
    return h('p', { class: 'callout ok', role: 'status' }, `Identical to ${diff.against.name} (${diff.against.kind}).`);
  }
  const g = diff.graph;
  const marks = {
    added: new Set(g.nodes.added.map((n) => n.id)),
    changed: new Set(g.nodes.changed.map((n) => n.id)),
    addedCords: new Set(g.cords.added.map((c) => `${c.from}→${c.to}`)),
  };
  return h(
    'div',
    { class: 'diff' },
    h('h3', {}, `Against ${diff.against.name} (${diff.against.kind})`),
    h('h4', {}, 'As a graph'),
    graphDiffView(g),
    current
      ? h(
          'div',
          { class: 'graph-wrap', tabindex: 0, role: 'group', 'aria-label': `Graph of ${current.name}, changes marked` },
          h('p', { class: 'legend' }, h('span', { class: 'key added' }, 'added'), ' ', h('span', { class: 'key changed' }, 'changed')),
          drawGraph(current, marks),
        )
      : null,
    h('h4', {}, 'As text'),
    sources && views
      ? compareView(sources, views).el
      : // null: the service found the texts too different to diff line by line within its bounds
        diff.unified === null
        ? h('p', { class: 'note' }, 'The texts differ in too many lines for a line diff; the graph diff above shows what changed.')
        : unifiedView(diff.unified, 'Unified diff'),
  );
}

export function graphDiffView(g: GraphDiff): HTMLElement {
  const none = !g.header.length && !g.nodes.added.length && !g.nodes.removed.length && !g.nodes.changed.length && !g.cords.added.length && !g.cords.removed.length;
  if (none) return h('p', { class: 'note' }, 'The graph is the same; only text differs (comments, order, prompts written alike).');
  const section = (title: string, items: (Node | string)[]) =>
    items.length ? h('div', { class: 'gd-section' }, h('h5', {}, title), h('ul', {}, items.map((i) => h('li', {}, i)))) : null;
  return h(
    'div',
    { class: 'graph-diff' },
    section('Header changed', g.header.map(fieldChangeView)),
    section('Nodes added', g.nodes.added.map((n) => h('span', { class: 'gd-add' }, h('code', {}, n.id), ` (${n.type})`))),
    section('Nodes removed', g.nodes.removed.map((n) => h('span', { class: 'gd-del' }, h('code', {}, n.id), ` (${n.type})`))),
    section(
      'Nodes changed',
      g.nodes.changed.map((n) => h('span', {}, h('code', {}, n.id), h('ul', {}, n.changes.map((c) => h('li', {}, fieldChangeView(c)))))),
    ),
    section('Cords added', g.cords.added.map((c) => h('span', { class: 'gd-add' }, h('code', {}, `${c.from} → ${c.to}`)))),
    section('Cords removed', g.cords.removed.map((c) => h('span', { class: 'gd-del' }, h('code', {}, `${c.from} → ${c.to}`)))),
  );
}

/** Unified diff text with each line classed by its first character. */
export function unifiedView(text: string, label: string): HTMLElement {
  const pre = h('pre', { class: 'unified', 'aria-label': label, tabindex: 0 });
  for (const line of text.replace(/\n$/, '').split('\n')) {
    const c = line.startsWith('+++') || line.startsWith('---') ? 'file' : line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('=') ? 'file' : '';
    pre.append(h('span', { class: c ? `l ${c}` : 'l' }, line), '\n');
  }
  return pre;
}
