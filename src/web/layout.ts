/**
 * Lays a template's graph out for drawing: each node in the column of its BFS
 * depth from the entry, in the order BFS meets it, so a reader follows the run
 * left to right. Nodes no path reaches go in one last column (the validator
 * warns about them). More columns than `bandCols` wrap into bands of equal
 * width, one under the other, so the whole run fits a 1280 px window. Pure:
 * no DOM, so it is unit-tested.
 */
export const BOX = { width: 144, height: 52, colGap: 60, rowGap: 30, pad: 20, bandCols: 5 } as const;

export interface LayoutInput {
  nodes: readonly { id: string }[];
  cords: readonly { from: string; to: string }[];
  entry?: string | null;
}

export interface PlacedNode {
  id: string;
  col: number;
  row: number;
  /** which band of columns, from the top (layout's comment) */
  band: number;
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
  label: { x: number; y: number; anchor: 'start' | 'middle' };
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

  const colOf = (id: string) => (depth.has(id) ? depth.get(id)! : maxDepth + 1);
  const rows = new Map<number, number>();
  for (const id of order) rows.set(colOf(id), (rows.get(colOf(id)) ?? 0) + 1);
  const cols = Math.max(0, ...[...rows.keys()].map((c) => c + 1));
  // more columns than a 1280 px window holds wrap into bands of equal width, so the last nodes (the terminal
  // among them) sit under the first ones, inside the drawing's width, rather than past the window's edge
  const bands = Math.max(1, Math.ceil(cols / BOX.bandCols));
  const perBand = Math.max(1, Math.ceil(cols / bands));
  const bandOf = (col: number) => Math.floor(col / perBand);
  const colX = (col: number) => BOX.pad + (col % perBand) * (BOX.width + BOX.colGap);
  const bandRows = (b: number) => Math.max(0, ...[...rows].filter(([c]) => bandOf(c) === b).map(([, n]) => n));

  // which cords loop back inside a band, and which cross from one band to another: each band's height needs them
  const ids = new Set(input.nodes.map((n) => n.id));
  const ends = input.cords.flatMap((c) => {
    const [fromId, outlet] = splitEnd(c.from);
    const [toId, inlet] = splitEnd(c.to);
    if (!ids.has(fromId) || !ids.has(toId)) return [];
    const a = colOf(fromId);
    const b = colOf(toId);
    // a cross cord runs in the lane under the upper of its two bands
    const kind: 'forward' | 'loop' | 'cross' = bandOf(a) !== bandOf(b) ? 'cross' : b > a ? 'forward' : 'loop';
    return [{ fromId, outlet, toId, inlet, kind, band: Math.min(bandOf(a), bandOf(b)) }];
  });
  const loopsIn = new Array<number>(bands).fill(0);
  const crossIn = new Array<number>(bands).fill(0);
  for (const e of ends) {
    if (e.kind === 'loop') loopsIn[e.band]!++;
    if (e.kind === 'cross') crossIn[e.band]!++;
  }
  const bandTop: number[] = [];
  const bodyBottom: number[] = [];
  let y = BOX.pad;
  for (let b = 0; b < bands; b++) {
    bandTop.push(y);
    bodyBottom.push(y + bandRows(b) * (BOX.height + BOX.rowGap) - BOX.rowGap);
    y = bodyBottom[b]! + 18 + loopsIn[b]! * 9 + 10 + crossIn[b]! * 8 + BOX.rowGap;
  }

  const seen = new Map<number, number>();
  const placed = new Map<string, PlacedNode>();
  for (const id of order) {
    const col = colOf(id);
    const row = seen.get(col) ?? 0;
    seen.set(col, row + 1);
    const band = bandOf(col);
    placed.set(id, { id, col, row, band, x: colX(col), y: bandTop[band]! + row * (BOX.height + BOX.rowGap), reachable: depth.has(id) });
  }

  const cords: PlacedCord[] = [];
  const loopsSoFar = new Array<number>(bands).fill(0);
  const crossSoFar = new Array<number>(bands).fill(0);
  const rightSoFar = new Map<string, number>();
  const belowSoFar = new Map<string, number>();
  for (const { fromId, outlet, toId, inlet, kind, band } of ends) {
    const a = placed.get(fromId)!;
    const b = placed.get(toId)!;
    const base = { from: fromId, to: toId, outlet, inlet };
    if (kind === 'forward') {
      const sx = a.x + BOX.width;
      const sy = a.y + BOX.height / 2;
      const tx = b.x;
      const ty = b.y + BOX.height / 2;
      const mx = (sx + tx) / 2;
      cords.push({
        ...base,
        d: `M${sx},${sy} C${mx},${sy} ${mx},${ty} ${tx},${ty}`,
        back: false,
        // to another row: at the curve's middle, just right of it, in the gap between the rows, where outlets of
        // one node ("approved", "rejected") part; drawn at the start they were written over each other. In the same
        // row, centred in the gap between the columns (60 px: "approved" is about 48), clear of both boxes
        label: sy === ty ? { x: mx, y: sy - 5, anchor: 'middle' } : { x: mx + 4, y: (sy + ty) / 2 - 4, anchor: 'start' },
      });
    } else if (kind === 'loop') {
      // Loops (revise, retry) go under every box in the columns they span, so
      // they never cross a node's face; each dips a little deeper than the last
      // so parallel loops stay apart.
      const n = ++loopsSoFar[band]!;
      const sx = a.x + BOX.width * 0.65;
      const sy = a.y + BOX.height;
      const tx = b.x + BOX.width * 0.35;
      const ty = b.y + BOX.height;
      let under = Math.max(sy, ty);
      for (let col = Math.min(a.col, b.col); col <= Math.max(a.col, b.col); col++) {
        const r = rows.get(col) ?? 0;
        if (r > 0) under = Math.max(under, bandTop[band]! + r * (BOX.height + BOX.rowGap) - BOX.rowGap);
      }
      const low = under + 16 + n * 9;
      // two loops from one node start at one point: their labels stack down beside it
      const k = belowSoFar.get(fromId) ?? 0;
      belowSoFar.set(fromId, k + 1);
      cords.push({ ...base, d: `M${sx},${sy} C${sx},${low} ${tx},${low} ${tx},${ty}`, back: true, label: { x: sx + 4, y: sy + 13 + k * 13, anchor: 'start' } });
    } else {
      // From one band to another: square turns through the lane under the upper band, below its loops, and up or
      // down the gaps beside the columns, which hold no box
      const lane = bodyBottom[band]! + 18 + loopsIn[band]! * 9 + 6 + crossSoFar[band]!++ * 8;
      if (b.band > a.band) {
        // a node's outlets to the next band leave its side 16 px apart, each labelled above its own start
        const k = rightSoFar.get(fromId) ?? 0;
        rightSoFar.set(fromId, k + 1);
        const sx = a.x + BOX.width;
        const sy = a.y + BOX.height / 2 - 8 + k * 16;
        const ty = b.y + BOX.height / 2;
        const right = sx + 12 + k * 4;
        const left = b.x - 8;
        cords.push({ ...base, d: `M${sx},${sy} H${right} V${lane} H${left} V${ty} H${b.x}`, back: false, label: { x: sx + 4, y: sy - 3, anchor: 'start' } });
      } else {
        const k = belowSoFar.get(fromId) ?? 0;
        belowSoFar.set(fromId, k + 1);
        const sx = a.x + BOX.width * 0.65;
        const sy = a.y + BOX.height;
        const tx = b.x + BOX.width * 0.35;
        const ty = b.y + BOX.height;
        const below = bodyBottom[a.band]! + 10 + (crossSoFar[band]! % 4) * 4;
        const gap = a.x - 14 - (crossSoFar[band]! % 2) * 3;
        cords.push({ ...base, d: `M${sx},${sy} V${below} H${gap} V${lane} H${tx} V${ty}`, back: true, label: { x: sx + 4, y: sy + 13 + k * 13, anchor: 'start' } });
      }
    }
  }

  // wrapped, the last column's outlets to the next band are labelled past its right edge: room for them
  const width = BOX.pad * 2 + Math.max(1, Math.min(cols, perBand)) * (BOX.width + BOX.colGap) - BOX.colGap + (bands > 1 ? 60 : 0);
  const last = bands - 1;
  const height = bodyBottom[last]! + BOX.pad + 18 + loopsIn[last]! * 9 + 10 + crossIn[last]! * 8;
  return { nodes: [...placed.values()], cords, width, height: Math.max(height, BOX.pad * 2 + BOX.height) };
}
