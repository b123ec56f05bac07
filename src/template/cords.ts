/**
 * The cord rules (docs/format.md, The patch): each end is `<node>.<port>` naming
 * an existing node and a port of the right direction; the same cord twice is
 * refused.
 */
import { isSeq } from 'yaml';
import type { CordModel } from './model.js';
import type { NodesRead } from './nodes.js';
import { LIMITS } from './read.js';
import { CordSchema, PATTERNS } from './schema.js';
import { type Path, type Walk, type YNode, checkMap, patternRegExp, str } from './walk.js';

/** A cord whose both ends name a node (ports checked where the node's ports are known). */
export interface Edge {
  from: string;
  outlet: string;
  to: string;
  inlet: string;
  /** the `from:` value, where problems about the cord's start point */
  at: YNode;
  path: Path;
}

export interface CordsRead {
  cords: CordModel[];
  edges: Edge[];
  overCap: boolean;
}

export function readCords(w: Walk, node: YNode, nodes: NodesRead): CordsRead {
  const out: CordsRead = { cords: [], edges: [], overCap: false };
  if (!isSeq(node)) return out;
  if (node.items.length > LIMITS.cords) {
    out.overCap = true;
    w.report('limit.cords', `\`cords\` has ${node.items.length} cords, over the cap of ${LIMITS.cords}; split the template`, ['cords'], node);
  }
  const seen = new Set<string>();
  const endpoint = patternRegExp(PATTERNS.endpoint);
  node.items.forEach((item, i) => {
    const path = ['cords', i];
    const e = checkMap(w, w.resolve(item), CordSchema, path, { what: `cord ${i + 1}`, valueCodes: { from: null, to: null } });
    if (!e) return;
    for (const key of e.missing) w.report('key.missing', `cord ${i + 1} has no \`${key}\`; add \`${key}: <node>.<port>\``, [...path, key], e.map);
    const ends: ({ node: string; port: string } | undefined)[] = [];
    for (const [key, dir] of [['from', 'outlet'], ['to', 'inlet']] as const) {
      const value = e.values.get(key);
      const s = str(value);
      if (s === undefined) {
        ends.push(undefined);
        continue;
      }
      const m = endpoint.exec(s);
      if (!m) {
        w.report('cord.endpoint', `cord ${i + 1}: \`${key}\` is '${s}', not of the form <node>.<${dir}>; write e.g. work.${dir === 'outlet' ? 'done' : 'start'}`, [...path, key], value);
        ends.push(undefined);
        continue;
      }
      const [, id = '', port = ''] = m;
      const target = nodes.byId.get(id);
      if (!target) {
        w.report('cord.node_unknown', `cord ${i + 1}: \`${key}\` names node '${id}', which does not exist; use a node id from \`nodes\``, [...path, key], value);
        ends.push(undefined);
        continue;
      }
      const ports = dir === 'outlet' ? target.model.outlets : target.model.inlets;
      if (target.portsKnown && !ports.includes(port)) {
        w.report('cord.port_unknown', `cord ${i + 1}: node '${id}' has no ${dir} '${port}'; use one of ${ports.join(', ') || '(none)'}`, [...path, key], value);
        ends.push(undefined);
        continue;
      }
      ends.push({ node: id, port });
    }
    const from = str(e.values.get('from'));
    const to = str(e.values.get('to'));
    if (from === undefined || to === undefined) return;
    const key = `${from}\u0000${to}`;
    if (seen.has(key)) {
      w.report('cord.duplicate', `cord ${i + 1} (${from} → ${to}) repeats an earlier cord; remove it`, path, e.map);
      return;
    }
    seen.add(key);
    const cord: CordModel = { from, to };
    const line = w.line(e.map);
    if (line !== undefined) cord.line = line;
    out.cords.push(cord);
    const [a, b] = ends;
    if (a && b) out.edges.push({ from: a.node, outlet: a.port, to: b.node, inlet: b.port, at: e.values.get('from'), path });
  });
  return out;
}
