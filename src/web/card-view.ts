import { h } from './dom.js';
import { graphDiffView } from './diff-view.js';
import { drawGraph, nodeKind } from './graph-svg.js';
import type { Card } from '../schema/card.js';

/**
 * The card: the header in words, the graph drawn, and a table of each node's
 * role, model, profile and what it can touch (docs/api.md, the card).
 */
export function cardView(card: Card, opts: { draft: boolean; goToLine?: (line: number) => void }): HTMLElement {
  const hd = card.header ?? {};
  const yesNo = (v: unknown) => (v ? 'yes' : 'no');
  const facts: [string, string][] = [
    ['purpose', card.purpose ?? '—'],
    ['ticket template', card.ticket ? 'yes — one previewed run per ticket' : 'no'],
    ['writes to a workspace', yesNo(hd.writes)],
    ['closes its ticket', yesNo(hd.closes_ticket)],
    ['starts at', hd.entry ? `${hd.entry}.${hd.inlet ?? '?'}` : '—'],
    ['ends at', hd.terminal ?? '—'],
    ['varies', hd.base ?? '—'],
    ['inputs', (hd.inputs ?? []).map((i) => `${i.name}${i.required ? ' (required)' : ''}: ${i.type}`).join(', ') || '—'],
  ];
  const errors = card.problems.filter((p) => p.severity === 'error').length;

  const rows = card.nodes.map((n) =>
    h(
      'tr',
      { 'data-node': n.id },
      h('th', { scope: 'row' }, h('code', {}, n.id)),
      h('td', {}, n.type),
      h('td', {}, nodeKind(n)),
      h('td', {}, n.model ?? (n.type === 'model' ? 'from preset' : '—')),
      h('td', {}, n.profile ?? '—'),
      h('td', { class: 'touches' }, n.touches.length ? n.touches.map((t) => h('span', { class: 'chip' }, t)) : 'nothing'),
      h(
        'td',
        {},
        n.line != null && opts.goToLine
          ? h('button', { type: 'button', class: 'link', 'aria-label': `go to node ${n.id} at line ${n.line}`, onclick: () => opts.goToLine?.(n.line!) }, String(n.line))
          : String(n.line ?? '—'),
      ),
    ),
  );

  return h(
    'div',
    { class: 'card' },
    opts.draft ? h('p', { class: 'note' }, 'This is the card of your unsaved text.') : null,
    !card.valid
      ? h('p', { class: 'callout error', role: 'note' }, `Not valid: ${errors} error${errors === 1 ? '' : 's'}. The graph shows what could be read.`)
      : null,
    card.name_differs ? h('p', { class: 'callout warning' }, `The header's name is not ${card.name}.`) : null,
    h('dl', { class: 'facts' }, facts.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
    h('h3', {}, 'Graph'),
    // drawn at its own size, so it may scroll: focusable, so the keyboard scrolls it too
    h('div', { class: 'graph-wrap', tabindex: 0, role: 'group', 'aria-label': `Graph of ${card.name}` }, drawGraph(card)),
    h('h3', {}, 'Nodes'),
    h(
      'div',
      // it scrolls sideways on a narrow window: reachable by keyboard, named for what it holds
      { class: 'table-wrap', tabindex: 0, role: 'group', 'aria-label': `Nodes of ${card.name}` },
      h(
        'table',
        { class: 'nodes' },
        h('caption', {}, `${card.nodes.length} nodes, ${card.cords.length} cords`),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['node', 'type', 'role / builtin / tool', 'model', 'profile', 'can touch', 'line'].map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        h('tbody', {}, rows),
      ),
    ),
    card.diff && !card.diff.identical
      ? h(
          'section',
          { class: 'card-diff', 'aria-label': `What changed against ${card.diff.against.name}` },
          h('h3', {}, `Against ${card.diff.against.name} (${card.diff.against.kind})`),
          // the graph diff's sections are h5, as under the diff tab's h4: headings go down one level at a time
          h('h4', {}, 'As a graph'),
          graphDiffView(card.diff.graph),
        )
      : null,
  );
}
