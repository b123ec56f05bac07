/**
 * Lays a template's graph out for drawing: each node in the column of its BFS
 * depth from the entry, in the order BFS meets it, so a reader follows the run
 * left to right. Nodes no path reaches go in one last column (the validator
 * warns about them). Pure: no DOM, so it is unit-tested.
 */
export const BOX = { width: 144, height: 52, colGap: 50, rowGap: 30, pad: 20 } as const;

export interface LayoutInput {
  nodes: readonly { id: string }[];
  cords: readonly { from: string; to: string }[];
  entry?: string | null;
}

export interface PlacedNode {
  id: string;
  col: number;
  row: number;
  x: number;
  y: number;
  reachable: boolean;
}

export interface PlacedCord {
  from: string;
  to: string;
  outlet: string;
  inlet: string;
  /** SVG path data */
  d: string;
  /** goes to the same or an earlier column: drawn as a loop below the boxes */
  back: boolean;
  label: { x: number; y: number };
}

export interface Layout {
  nodes: PlacedNode[];
  cords: PlacedCord[];
  width: number;
  height: number;
}

/** `work.done` → [`work`, `done`]; the node id never holds a dot (`[a-z][a-z0-9_]*`). */
export function splitEnd(end: string): [string, string] {
  const i = end.indexOf('.');
  return i === -1 ? [end, ''] : [end.slice(0, i), end.slice(i + 1)];
}

export function depths(input: LayoutInput): Map<string, number> {
  const ids = new Set(input.nodes.map((n) => n.id));
  const next = new Map<string, string[]>();
  for (const c of input.cords) {
    const [a] = splitEnd(c.from);
    const [b] = splitEnd(c.to);
    if (!ids.has(a) || !ids.has(b)) continue;
    const list = next.get(a) ?? [];
    list.push(b);
    next.set(a, list);
  }
  const depth = new Map<string, number>();
  const start = input.entry && ids.has(input.entry) ? input.entry : input.nodes[0]?.id;
  if (start === undefined) return depth;
  depth.set(start, 0);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    for (const to of next.get(id) ?? []) {
      if (depth.has(to)) continue;
      depth.set(to, depth.get(id)! + 1);
      queue.push(to);
    }
  }
  return depth;
}

export function layout(input: LayoutInput): Layout {
  const depth = depths(input);
  const maxDepth = Math.max(-1, ...depth.values());
  // BFS order within a column; unreachable nodes keep their source order.
  const order = [...depth.keys()];
  for (const n of input.nodes) if (!depth.has(n.id)) order.push(n.id);

  const rows = new Map<number, number>();
  const placed = new Map<string, PlacedNode>();
  for (const id of order) {
    const reachable = depth.has(id);
    const col = reachable ? depth.get(id)! : maxDepth + 1;
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    placed.set(id, {
      id,
      col,
      row,
      x: BOX.pad + col * (BOX.width + BOX.colGap),
      y: BOX.pad + row * (BOX.height + BOX.rowGap),
      reachable,
    });
  }

  const cols = Math.max(0, ...[...rows.keys()].map((c) => c + 1));
  const maxRows = Math.max(0, ...rows.values());
  const bodyBottom = BOX.pad + maxRows * (BOX.height + BOX.rowGap) - BOX.rowGap;

  const cords: PlacedCord[] = [];
  let loops = 0;
  for (const c of input.cords) {
    const [fromId, outlet] = splitEnd(c.from);
    const [toId, inlet] = splitEnd(c.to);
    const a = placed.get(fromId);
    const b = placed.get(toId);
    if (!a || !b) continue;
    if (b.col > a.col) {
      const sx = a.x + BOX.width;
      const sy = a.y + BOX.height / 2;
      const tx = b.x;
      const ty = b.y + BOX.height / 2;
      const mx = (sx + tx) / 2;
      cords.push({
        from: fromId,
        to: toId,
        outlet,
        inlet,
        d: `M${sx},${sy} C${mx},${sy} ${mx},${ty} ${tx},${ty}`,
        back: false,
        // to another row: at the curve's middle, just right of it, in the gap between the rows, where outlets of
        // one node ("approved", "rejected") part; drawn at the start they were written over each other. In the same
        // row, at the start, where the gap between the columns holds it
        label: sy === ty ? { x: sx + 4, y: sy - 5 } : { x: mx + 4, y: (sy + ty) / 2 - 4 },
      });
    } else {
      // Loops (revise, retry) go under every box in the columns they span, so
      // they never cross a node's face; each dips a little deeper than the last
      // so parallel loops stay apart.
      loops++;
      const sx = a.x + BOX.width * 0.65;
      const sy = a.y + BOX.height;
      const tx = b.x + BOX.width * 0.35;
      const ty = b.y + BOX.height;
      let under = Math.max(sy, ty);
      for (let col = Math.min(a.col, b.col); col <= Math.max(a.col, b.col); col++) {
        const n = rows.get(col) ?? 0;
        if (n > 0) under = Math.max(under, BOX.pad + n * (BOX.height + BOX.rowGap) - BOX.rowGap);
      }
      const low = under + 16 + loops * 9;
      cords.push({
        from: fromId,
        to: toId,
        outlet,
        inlet,
        d: `M${sx},${sy} C${sx},${low} ${tx},${low} ${tx},${ty}`,
        back: true,
        label: { x: sx + 4, y: sy + 13 },
      });
    }
  }

  const width = BOX.pad * 2 + Math.max(1, cols) * (BOX.width + BOX.colGap) - BOX.colGap;
  const height = bodyBottom + BOX.pad + 18 + loops * 9 + 10;
  return { nodes: [...placed.values()], cords, width, height: Math.max(height, BOX.pad * 2 + BOX.height) };
}
