import type { EntryState } from '../schema/state.js';

/**
 * What the page says for each state (src/schema/state.ts lists them): the
 * sentence is a short form of docs/api.md's States table (when and what to
 * do), the label is the badge's short form.
 */
export const STATES: Record<EntryState, { label: string; sentence: string }> = {
  shipped: { label: 'shipped', sentence: 'shipped' },
  same_as_shipped: {
    label: 'same as shipped',
    sentence: 'same as shipped — it only freezes the copy; reset it',
  },
  stale: {
    label: 'stale',
    sentence: 'an unedited copy of an older shipped version — reset to take the new one',
  },
  shipped_changed_since: {
    label: 'shipped changed',
    sentence: 'edited: shipped changed since — read the shipped one again before keeping the copy',
  },
  edited: { label: 'edited', sentence: 'edited' },
  custom: { label: 'custom', sentence: "the operator's own" },
  read_only: { label: 'read-only', sentence: 'read-only' },
  diverged: {
    label: 'diverged',
    sentence: 'diverged: the team library changed it too, and the two could not be merged — compare, rebase onto theirs, or keep yours',
  },
};

/** The filter chips' order: the states an operator acts on first, then the quiet ones. */
export const CHIP_ORDER: readonly EntryState[] = [
  'diverged',
  'shipped_changed_since',
  'stale',
  'same_as_shipped',
  'edited',
  'custom',
  'shipped',
  'read_only',
];

export function stateInfo(state: string): { label: string; sentence: string } {
  return (STATES as Record<string, { label: string; sentence: string }>)[state] ?? { label: state, sentence: state };
}

/**
 * The accessible name of a library row, e.g. `template quick-fix, shipped`,
 * or `template batch, edited, edited outside` for a file changed by hand.
 */
export function rowLabel(kind: 'template' | 'role', name: string, state: string, outside = false): string {
  return `${kind} ${name}, ${stateInfo(state).label}${outside ? ', edited outside' : ''}`;
}

/** A copy of a shipped template or role exists, so reset means something. */
export function canReset(state: string, shipped: boolean): boolean {
  return shipped && state !== 'shipped' && state !== 'read_only' && state !== 'custom';
}

/** States in which a three-way merge onto today's shipped version is worth previewing. */
export function canRebase(state: string): boolean {
  return state === 'shipped_changed_since' || state === 'stale';
}
