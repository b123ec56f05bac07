/**
 * Loops are bounded (docs/format.md, "Loops"). A cycle is bounded when a
 * person decides each pass (it goes through a `human_gate`), when each pass
 * takes the next item of a list (it goes through a cord into a `for_each`'s
 * `next` inlet: the list runs out), or when a node on it declares
 * `max_visits`. Any other cycle could spin for ever at the run's expense,
 * so it is a warning, `loop.unbounded`, naming one such cycle.
 *
 * Linear in nodes and cords: Tarjan's strongly connected components once over
 * the graph without gates and `next` cords (the loops the card lists), and
 * once more inside each loop without its bounded nodes (what is left that
 * still cycles is unbounded).
 */
import type { Edge } from './cords.js';
import type { LoopModel } from './model.js';
import type { NodeRead, NodesRead } from './nodes.js';
import type { Walk } from './walk.js';

export function checkLoops(w: Walk, nodes: NodesRead, edges: readonly Edge[]): LoopModel[] {
  const order = new Map(nodes.nodes.map((n, i) => [n.model.id, i]));
  const isGate = (n: NodeRead | undefined) => n?.model.type === 'builtin' && n.model.builtin === 'human_gate';
  const out = new Map<string, string[]>();
  for (const e of edges) {
    const from = nodes.byId.get(e.from);
    const to = nodes.byId.get(e.to);
    if (!from || !to || isGate(from) || isGate(to)) continue;
    if (to.model.type === 'builtin' && to.model.builtin === 'for_each' && e.inlet === 'next') continue;
    const list = out.get(e.from);
    if (list) list.push(e.to);
    else out.set(e.from, [e.to]);
  }

  const loops: LoopModel[] = [];
  for (const part of components([...order.keys()], out, order)) {
    const bounds = part.flatMap((id) => {
      const v = nodes.byId.get(id)?.model.max_visits;
      return v === undefined ? [] : [{ node: id, max_visits: v }];
    });
    const bounded = new Set(bounds.map((b) => b.node));
    const rest = part.filter((id) => !bounded.has(id));
    const unbounded = components(rest, out, order);
    for (const free of unbounded) {
      const cycle = cycleThrough(free, out);
      const first = nodes.byId.get(free[0]!)!;
      w.report('loop.unbounded', unboundedMessage(cycle, first.model.id), first.path, first.keyNode);
    }
    loops.push({
      cycle: cycleThrough(unbounded[0] ?? part, out),
      nodes: part,
      bounds,
      bounded: unbounded.length === 0,
    });
  }
  return loops;
}

/** What `loop.unbounded` says, at save and again in a launch preview (launch.ts). */
export function unboundedMessage(cycle: readonly string[], node: string): string {
  return `the loop ${cycle.join(' → ')} has no human gate and no bound; add \`max_visits: <n>\` to one of its nodes (e.g. ${node}) or route it through a human_gate`;
}

/**
 * The strongly connected parts among `ids` (cords leaving `ids` ignored) that
 * hold a cycle — more than one node, or one node wired to itself — each in
 * source order, the parts ordered by their first node. Tarjan's algorithm
 * with an explicit stack: 256 nodes deep would be fine recursive, but a
 * stack costs nothing and cannot overflow.
 */
function components(ids: readonly string[], out: ReadonlyMap<string, readonly string[]>, order: ReadonlyMap<string, number>): string[][] {
  const member = new Set(ids);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const parts: string[][] = [];
  let next = 0;
  const succ = (id: string) => (out.get(id) ?? []).filter((s) => member.has(s));
  for (const root of ids) {
    if (index.has(root)) continue;
    const work: { id: string; succ: string[]; i: number }[] = [{ id: root, succ: succ(root), i: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const top = work[work.length - 1]!;
      if (top.i < top.succ.length) {
        const s = top.succ[top.i++]!;
        if (!index.has(s)) {
          index.set(s, next);
          low.set(s, next++);
          stack.push(s);
          onStack.add(s);
          work.push({ id: s, succ: succ(s), i: 0 });
        } else if (onStack.has(s)) {
          low.set(top.id, Math.min(low.get(top.id)!, index.get(s)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(top.id)!));
      if (low.get(top.id) !== index.get(top.id)) continue;
      const part: string[] = [];
      let id: string;
      do {
        id = stack.pop()!;
        onStack.delete(id);
        part.push(id);
      } while (id !== top.id);
      const selfLoop = part.length === 1 && (out.get(part[0]!) ?? []).includes(part[0]!);
      if (part.length > 1 || selfLoop) parts.push(part.sort((a, b) => order.get(a)! - order.get(b)!));
    }
  }
  return parts.sort((a, b) => order.get(a[0]!)! - order.get(b[0]!)!);
}

/** A shortest cycle through the part's first node, staying inside the part: `[a, b, a]`. */
function cycleThrough(part: readonly string[], out: ReadonlyMap<string, readonly string[]>): string[] {
  const start = part[0]!;
  const inside = new Set(part);
  const prev = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    for (const s of out.get(id) ?? []) {
      if (!inside.has(s)) continue;
      if (s === start) {
        const path = [start];
        for (let at: string | undefined = id; at !== undefined && at !== start; at = prev.get(at)) path.unshift(at);
        return [start, ...path];
      }
      if (!prev.has(s)) {
        prev.set(s, id);
        queue.push(s);
      }
    }
  }
  return [start, start];
}
