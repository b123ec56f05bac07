/**
 * Which decided records leave `proposals/` and `launches/` (docs/api.md,
 * Proposals, Bounds; Launches): one rule for both folders, each counted on
 * its own. Every desk of a team applies the same rule to the records it
 * holds, so what one desk removes, and syncs as removed, is what another
 * would remove from the same records: never a pending proposal, never a
 * decided one the rule keeps. The rule reads only what the record says —
 * its decision time, then its id — never this desk's clock or the order it
 * learned of the records in.
 */

/** What the rule reads of a record: a proposal's summary or a launch draft's. */
export interface Decidable {
  id: string;
  status: string;
  decided_at: string | null;
}

/** How many decided records stay unless DESK_DECIDED_KEEP says otherwise. */
export const DEFAULT_DECIDED_KEEP = 1000;

/**
 * Newest first: the later `decided_at` (ISO 8601 as the service writes it,
 * so the strings sort as the times do), then the greater id. A record with
 * no decision time (hand-made) sorts as the oldest.
 */
export function newerFirst(a: Decidable, b: Decidable): number {
  const at = a.decided_at ?? '';
  const bt = b.decided_at ?? '';
  if (at !== bt) return at < bt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The decided records past the newest `keep`, by the rule above; pending ones are never among them. */
export function pastKeep<T extends Decidable>(records: Iterable<T>, keep: number): T[] {
  const decided = [...records].filter((p) => p.status !== 'pending');
  if (decided.length <= keep) return [];
  return decided.sort(newerFirst).slice(keep);
}

/** The subject of the commit that removes them (docs/api.md, Proposals, Bounds): `proposals: 12 decided records …`. */
export function pruneMessage(count: number, keep: number, folder = 'proposals'): string {
  return `${folder}: ${count} decided record${count === 1 ? '' : 's'} past the newest ${keep} removed`;
}
