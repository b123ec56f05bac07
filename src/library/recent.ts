/**
 * Marks `item` as the most recently used in `set` (a Set keeps insertion
 * order, so the first is the least recent) and, past `max`, removes and
 * returns the least recent one so the caller can drop what it kept for it.
 * The bounded caches of whole validations and file bytes share this.
 */
export function markUsed<T>(set: Set<T>, item: T, max: number): T | undefined {
  set.delete(item);
  set.add(item);
  if (set.size <= max) return undefined;
  const oldest = set.values().next().value as T;
  set.delete(oldest);
  return oldest;
}
