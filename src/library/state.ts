import type { EntryState } from './entries.js';
import type { Marker } from './disk/markers.js';

import type { DivergedWhy } from '../schema/sync.js';

export type { DivergedWhy };

/**
 * Names whose copy here and the remote's differ until a person decides
 * (docs/history.md, Diverged), with why, kept by sync/files.ts.
 * Set on the library's context so the readers see it; one map each for
 * templates and roles.
 */
export interface DivergedNames {
  templates: ReadonlyMap<string, DivergedWhy>;
  roles: ReadonlyMap<string, DivergedWhy>;
}

/**
 * `diverged` comes before every other state of a name that has a copy or
 * had one: what loads is this desk's side of a conflict the operator has not
 * settled yet, whatever its marker says. `edited_outside` keeps its meaning.
 */
export function syncState<S extends { state: EntryState; edited_outside: boolean }>(st: S, diverged: boolean): S | { state: EntryState; edited_outside: boolean } {
  return diverged ? { state: 'diverged', edited_outside: st.edited_outside } : st;
}

/**
 * The state table of docs/api.md (States), for a shipped name that has an
 * operator copy. Hashes are template sha256s or role revisions. Bytes decide
 * first: a copy equal to today's shipped version is `same_as_shipped` whatever
 * its marker says.
 */
export function decideState(shippedHash: string, copyHash: string, marker: Marker | null): { state: EntryState; edited_outside: boolean } {
  // no marker at all: the service writes one with every copy of a shipped name, so this copy was made without it
  // (by hand, or pushed by a teammate with plain git) — unless it is the shipped bytes, which need no saying
  const edited_outside = marker ? marker.copy !== undefined && marker.copy !== copyHash : copyHash !== shippedHash;
  if (copyHash === shippedHash) return { state: 'same_as_shipped', edited_outside };
  // no marker: saved before markers or written by hand — never shipped_changed_since
  if (!marker || marker.shipped === shippedHash) return { state: 'edited', edited_outside };
  if (copyHash === marker.shipped) return { state: 'stale', edited_outside };
  return { state: 'shipped_changed_since', edited_outside };
}
