import type { EntryState } from './types.js';
import type { Marker } from './markers.js';

/**
 * The state table of docs/api.md (States), for a shipped name that has an
 * operator copy. Hashes are template sha256s or role revisions. Bytes decide
 * first: a copy equal to today's shipped version is `same_as_shipped` whatever
 * its marker says.
 */
export function decideState(shippedHash: string, copyHash: string, marker: Marker | null): { state: EntryState; edited_outside: boolean } {
  const edited_outside = marker?.copy !== undefined && marker.copy !== copyHash;
  if (copyHash === shippedHash) return { state: 'same_as_shipped', edited_outside };
  // no marker: saved before markers or written by hand — never shipped_changed_since
  if (!marker || marker.shipped === shippedHash) return { state: 'edited', edited_outside };
  if (copyHash === marker.shipped) return { state: 'stale', edited_outside };
  return { state: 'shipped_changed_since', edited_outside };
}
