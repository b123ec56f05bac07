import { s } from './dom.js';
import { BOX, layout } from './layout.js';
import type { Card, CardNode } from '../schema/card.js';

export interface GraphMarks {
  /** node ids drawn as added / changed (the graph diff) */
  added?: ReadonlySet<string>;
  changed?: ReadonlySet<string>;
  /** cords `from→to` drawn as added */
  addedCords?: ReadonlySet<string>;
}

/** What a node is, in the second line of its box: the role it plays, the builtin, or the tool. */
export function nodeKind(n: CardNode): string {
  if (n.type === 'model') return n.role ? `role ${n.role}` : 'model';
  if (n.type === 'builtin') return n.builtin ?? 'builtin';
  if (n.type === 'tool') return n.tool ? `tool ${n.tool}` : 'tool';
  return n.type;
}

export function drawGraph(card: Pick<Card, 'name' | 'nodes' | 'cords' | 'header'>, marks: GraphMarks = {}): SVGElement {
  const entry = typeof card.header?.entry === 'string' ? card.header.entry : null;
  const terminal = typeof card.header?.terminal === 'string' ? card.header.terminal : null;
  const l = layout({ nodes: card.nodes, cords: card.cords, entry });
  const byId = new Map(card.nodes.map((n) => [n.id, n]));

  const svg = s('svg', {
    class: 'graph',
    width: l.width,
    height: l.height,
    viewBox: `0 0 ${l.width} ${l.height}`,
    role: 'img',
    'aria-label': `graph of ${card.name}: ${card.nodes.length} nodes, ${card.cords.length} cords`,
  });
  svg.append(
    s(
      'defs',
      {},
      s(
        'marker',
        { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' },
        s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }),
      ),
    ),
  );

  for (const c of l.cords) {
    const key = `${c.from}.${c.outlet}→${c.to}.${c.inlet}`;
    const cls = ['cord', c.back ? 'back' : '', marks.addedCords?.has(key) ? 'added' : ''].filter(Boolean).join(' ');
    svg.append(
      s(
        'g',
        { class: cls },
        s('title', {}, `${c.from}.${c.outlet} → ${c.to}.${c.inlet}`),
        s('path', { d: c.d, 'marker-end': 'url(#arrow)' }),
        c.outlet && (c.outlet !== 'done' || c.back)
          ? s('text', { x: c.label.x, y: c.label.y, class: 'port', 'text-anchor': c.label.anchor }, c.outlet)
          : null,
      ),
    );
  }

  for (const p of l.nodes) {
    const n = byId.get(p.id);
    if (!n) continue;
    const cls = [
      'node',
      `type-${n.type}`,
      p.reachable ? '' : 'unreachable',
      marks.added?.has(p.id) ? 'added' : '',
      marks.changed?.has(p.id) ? 'changed' : '',
    ]
      .filter(Boolean)
      .join(' ');
    const touches = n.touches.length ? `touches ${n.touches.join(', ')}` : 'touches nothing';
    const flag = p.id === entry ? 'entry' : p.id === terminal ? 'terminal' : null;
    svg.append(
      s(
        'g',
        { class: cls, 'data-node': p.id, transform: `translate(${p.x},${p.y})` },
        s('title', {}, `${p.id}: ${nodeKind(n)}${n.profile ? `, profile ${n.profile}` : ''}; ${touches}`),
        s('rect', { width: BOX.width, height: BOX.height, rx: 7 }),
        s('text', { x: 10, y: 21, class: 'id' }, p.id),
        s('text', { x: 10, y: 39, class: 'kind' }, clip(nodeKind(n), 21)),
        flag ? s('text', { x: BOX.width - 8, y: 14, class: 'flag', 'text-anchor': 'end' }, flag) : null,
      ),
    );
  }
  return svg;
}

function clip(text: string, n: number): string {
  return text.length > n ? text.slice(0, n - 1) + '…' : text;
}
