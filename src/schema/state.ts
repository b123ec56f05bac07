/**
 * The state of every template and role: the one list the library computes,
 * the routes answer and the page shows (docs/api.md, States, says what to
 * do about each). Node-free, so the page can import its type.
 */
import { type Static, Type } from '@sinclair/typebox';

export const ENTRY_STATES = [
  'shipped',
  'same_as_shipped',
  'stale',
  'shipped_changed_since',
  'edited',
  'custom',
  'read_only',
  // a sync with the team's remote found this name changed on both sides and could not merge them
  // (docs/history.md, Sync): the local copy is kept, the remote's version is offered
  'diverged',
] as const;

export const EntryStateSchema = Type.Union(
  ENTRY_STATES.map((s) => Type.Literal(s)),
  { description: 'docs/api.md, States, says what each means and what to do about it' },
);
export type EntryState = Static<typeof EntryStateSchema>;
