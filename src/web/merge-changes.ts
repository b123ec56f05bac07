/**
 * Changes between two values of a changed field, as lists a person reads
 * (merge-header.ts draws them). Pure, so it is tested without a browser.
 */

export type Keyed = Record<string, unknown>;

export interface ItemChange {
  kind: 'added' | 'removed' | 'changed';
  key: string;
  /** the item as added or removed */
  item?: unknown;
  /** for a changed item: its parts that differ */
  parts?: { part: string; before: unknown; after: unknown }[];
}

export function isObject(v: unknown): v is Keyed {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function same(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((v, i) => same(v, y[i]));
  const a = x as Keyed;
  const b = y as Keyed;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

/** Changes between two lists of objects told apart by `key`; null when either side is not such a list. */
export function keyedChanges(before: unknown, after: unknown, key: string): ItemChange[] | null {
  const list = (v: unknown) => (v === null ? [] : Array.isArray(v) && v.every((i) => isObject(i) && typeof i[key] === 'string') ? (v as Keyed[]) : null);
  const a = list(before);
  const b = list(after);
  if (!a || !b) return null;
  const am = new Map(a.map((i) => [i[key] as string, i]));
  const bm = new Map(b.map((i) => [i[key] as string, i]));
  const out: ItemChange[] = [];
  for (const [k, i] of bm) if (!am.has(k)) out.push({ kind: 'added', key: k, item: i });
  for (const [k, i] of am) if (!bm.has(k)) out.push({ kind: 'removed', key: k, item: i });
  for (const [k, x] of am) {
    const y = bm.get(k);
    if (!y || same(x, y)) continue;
    const names = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((p) => p !== key && !same(x[p], y[p]));
    out.push({ kind: 'changed', key: k, parts: names.map((p) => ({ part: p, before: x[p] ?? null, after: y[p] ?? null })) });
  }
  return out;
}

/** Words added and removed between two lists of strings; null when either is not one. */
export function wordChanges(before: unknown, after: unknown): { added: string[]; removed: string[] } | null {
  const list = (v: unknown) => (v === null ? [] : Array.isArray(v) && v.every((i) => typeof i === 'string') ? (v as string[]) : null);
  const a = list(before);
  const b = list(after);
  if (!a || !b) return null;
  return { added: b.filter((w) => !a.includes(w)), removed: a.filter((w) => !b.includes(w)) };
}
