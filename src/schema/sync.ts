/**
 * The sync with the team's remote (docs/api.md, Sync; docs/history.md,
 * Sync). Node-free, so the page imports the types.
 */
import { type Static, Type } from '@sinclair/typebox';

/** A round while it runs: GET /sync carries it, and POST /sync answers 202 with it when the round outlasts its wait. */
export const RoundProgressSchema = Type.Object(
  {
    id: Type.String(),
    state: Type.Literal('running'),
    done: Type.Integer({ minimum: 0, description: "names of the round merged so far (templates, roles, kept bases, proposal records)" }),
    total: Type.Integer({ minimum: 0, description: 'names the remote changed; 0 until the round has fetched and compared' }),
    started_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
export type RoundProgress = Static<typeof RoundProgressSchema>;

/** POST /sync's 202: the round goes on; GET /sync follows it, and `library.synced` says when it is done. */
export const SyncRunningSchema = Type.Object({ round: RoundProgressSchema }, { additionalProperties: false });

export const SyncStatusSchema = Type.Object(
  {
    remote: Type.Union([Type.String(), Type.Null()], {
      description: 'DESK_LIBRARY_REMOTE, any password in a URL left out; null when the service runs without one',
    }),
    ahead: Type.Integer({ minimum: 0, description: 'commits here the remote has not got (as last fetched)' }),
    behind: Type.Integer({ minimum: 0, description: 'commits on the remote not merged here (as last fetched)' }),
    last_sync: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when the last fetch and merge succeeded' }),
    last_error: Type.Union([Type.String(), Type.Null()], { description: 'why the last push or sync failed; null once one succeeds' }),
    diverged: Type.Array(Type.String(), { description: 'templates changed on both sides that could not be merged: the local copy is kept' }),
    diverged_roles: Type.Array(Type.String(), { description: 'the same for roles' }),
    round: Type.Optional(RoundProgressSchema),
  },
  { additionalProperties: false },
);
export type SyncStatus = Static<typeof SyncStatusSchema>;

/** GET /sync/templates/:name: a diverged template's other versions. */
export const DivergedTemplateSchema = Type.Object(
  {
    name: Type.String(),
    remote: Type.String({ description: "the remote's commit the conflict came from; diff against it with ?against=version:<remote>" }),
    base: Type.Union([Type.String(), Type.Null()], { description: 'the merge base, or null when the two histories share none' }),
    remote_source: Type.Union([Type.String(), Type.Null()], {
      description: "what loads on the remote: its copy, or the shipped bytes when it has none; null when a custom template was removed there",
    }),
    base_source: Type.Union([Type.String(), Type.Null()], { description: 'what loaded at the merge base, the same way; null when there is none' }),
  },
  { additionalProperties: false },
);
export type DivergedTemplate = Static<typeof DivergedTemplateSchema>;
