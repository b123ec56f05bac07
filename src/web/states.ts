import type { EntryState } from '../schema/state.js';

/**
 * What the page says for each state: the sentence is a short form of
 * docs/api.md's States table (when and what to do), the label is the badge's short form.
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
};

export function stateInfo(state: string): { label: string; sentence: string } {
  return (STATES as Record<string, { label: string; sentence: string }>)[state] ?? { label: state, sentence: state };
}

/** The accessible name of a library row, e.g. `template quick-fix, shipped`. */
export function rowLabel(kind: 'template' | 'role', name: string, state: string): string {
  return `${kind} ${name}, ${stateInfo(state).label}`;
}

/** A copy of a shipped template or role exists, so reset means something. */
export function canReset(state: string, shipped: boolean): boolean {
  return shipped && state !== 'shipped' && state !== 'read_only' && state !== 'custom';
}

/** States in which a three-way merge onto today's shipped version is worth previewing. */
export function canRebase(state: string): boolean {
  return state === 'shipped_changed_since' || state === 'stale';
}
