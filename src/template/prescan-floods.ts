// Early stops for floods the pre-scan can see on the CST (prescan.ts): a
// hundred duplicate keys or stray-bracket errors need not cost a full parse.
import { CST } from 'yaml';
import { MAX_PROBLEMS_PER_CODE, type ProblemCollector } from './problem-collector.js';
import { type ProblemCode, pointer } from './problems.js';

/**
 * Problems that only count when there are MAX_PROBLEMS_PER_CODE of them: a
 * flood is reported by the pre-scan, anything less by the later, exact pass.
 */
export class Flood {
  private readonly items: { offset: number; message: string; path: string }[] = [];

  /** Returns true when the flood is full. */
  push(offset: number, message: string, path = ''): boolean {
    this.items.push({ offset, message, path });
    return this.items.length >= MAX_PROBLEMS_PER_CODE;
  }

  /** Hands a full flood to the collector; returns true when it was full. */
  flush(out: ProblemCollector, code: ProblemCode, path?: string): boolean {
    if (this.items.length < MAX_PROBLEMS_PER_CODE) return false;
    for (const p of this.items) out.add(code, p.message, path ?? p.path, p.offset);
    return true;
  }
}

type CstCollection = CST.BlockMap | CST.BlockSequence | CST.FlowCollection;

function keyOf(token: CST.Token | null | undefined): string | undefined {
  if (!token) return undefined;
  const scalar = CST.resolveAsScalar(token as CST.FlowScalar);
  return scalar ? scalar.value : undefined;
}

/**
 * Spots duplicate keys on the CST, so that a flood of them stops the scan
 * instead of costing a full parse. Right after the parser takes a `:`, the
 * innermost mapping is on top of its stack and its last item holds the key.
 */
export class DuplicateWatch {
  readonly found = new Flood();
  private readonly keys = new WeakMap<CST.Token, Set<string>>();

  /** Returns true when the duplicates found reach MAX_PROBLEMS_PER_CODE. */
  keyDone(stack: readonly CST.Token[]): boolean {
    const top = stack[stack.length - 1];
    if (!top || !(top.type === 'block-map' || (top.type === 'flow-collection' && top.start.type === 'flow-map-start'))) return false;
    const item = top.items[top.items.length - 1];
    if (!item?.key || item.value || item.sep?.[item.sep.length - 1]?.type !== 'map-value-ind') return false;
    const key = keyOf(item.key);
    if (key === undefined) return false;
    let seen = this.keys.get(top);
    if (!seen) {
      seen = new Set();
      this.keys.set(top, seen);
    }
    if (!seen.has(key)) {
      seen.add(key);
      return false;
    }
    return this.found.push(item.key.offset, `the key ${JSON.stringify(key.slice(0, 64))} appears twice in this mapping`, pathOf(stack));
  }
}

/** The JSON Pointer of the node being read, from the parser's stack. */
export function pathOf(stack: readonly CST.Token[]): string {
  const segments: (string | number)[] = [];
  for (const t of stack) {
    if (t.type !== 'block-map' && t.type !== 'block-seq' && t.type !== 'flow-collection') continue;
    const c = t as CstCollection;
    const last = c.items[c.items.length - 1];
    const isMap = c.type === 'block-map' || (c.type === 'flow-collection' && c.start.type === 'flow-map-start');
    segments.push(isMap ? (keyOf(last?.key) ?? '') : c.items.length - 1);
  }
  return pointer(segments);
}
