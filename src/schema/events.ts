/**
 * What `GET /api/desk/events` carries (docs/api.md, Events): one schema per
 * event's `data`, so the bus, the stream and the page share one shape.
 * Node-free, so the page can import the types.
 */
import { type Static, Type } from '@sinclair/typebox';
import { DivergedDetailSchema } from './sync.js';
import { EntryStateSchema } from './state.js';

/**
 * Who made the change: the user's name (docs/security.md, Users and roles),
 * or the client address on a desk with no users; null or absent when no one
 * asked through the service (a change found on disk, one a sync brought).
 */
const Who = Type.Optional(
  Type.Union([Type.String(), Type.Null()], {
    description: "the user's name, or the client address on a desk with no users; absent or null when no one asked through the service",
  }),
);

/** After a write through the service, or a change found on disk. `state` and `etag` are null once nothing of that name loads. */
export const EntryChangedSchema = Type.Object(
  {
    name: Type.String(),
    state: Type.Union([EntryStateSchema, Type.Null()]),
    etag: Type.Union([Type.String(), Type.Null()], { description: 'the strong ETag now, quoted; null when deleted' }),
    who: Who,
  },
  { additionalProperties: false },
);
export type EntryChanged = Static<typeof EntryChangedSchema>;

/** A proposal was made or decided (saved or dismissed). `etag` is the saved template's; `note` the dismissal's. */
export const ProposalEventSchema = Type.Object(
  {
    id: Type.String(),
    status: Type.String({ description: 'pending, saved or dismissed' }),
    name: Type.String(),
    etag: Type.Union([Type.String(), Type.Null()]),
    note: Type.Union([Type.String(), Type.Null()]),
    edited: Type.Optional(Type.Boolean({ description: "on `proposal.decided`: saved with the operator's edits (docs/api.md, Proposals)" })),
    who: Who,
  },
  { additionalProperties: false },
);
export type ProposalEvent = Static<typeof ProposalEventSchema>;

/** A launch was drafted or decided (approved, dismissed, withdrawn). `etag` is the template version it is on; `note` the dismissal's. */
export const LaunchEventSchema = Type.Object(
  {
    id: Type.String(),
    status: Type.String({ description: 'pending, approved, dismissed or withdrawn' }),
    template: Type.String(),
    etag: Type.String(),
    note: Type.Union([Type.String(), Type.Null()]),
    who: Who,
  },
  { additionalProperties: false },
);
export type LaunchEvent = Static<typeof LaunchEventSchema>;

/**
 * A sync round merged the remote's changes: one event for the whole round,
 * however many names it wrote (a round may bring thousands). The page reads
 * its list again; a client that keeps names reads those listed, or all when
 * `changed` is more than `names` holds.
 */
export const LibrarySyncedSchema = Type.Object(
  {
    round: Type.String({ description: "the round's id, as GET /sync's `round.id` gave it while it ran" }),
    changed: Type.Integer({ minimum: 0, description: 'templates and roles the round wrote or marked diverged' }),
    diverged: Type.Integer({ minimum: 0, description: 'templates and roles diverged after the round' }),
    names: Type.Array(Type.String(), {
      maxItems: 100,
      description: 'the first 100 of those, as `template:<name>` or `role:<name>`',
    }),
    diverged_detail: Type.Array(DivergedDetailSchema, { maxItems: 100, description: 'the names this round left diverged (the first 100), and why' }),
  },
  { additionalProperties: false },
);
export type LibrarySynced = Static<typeof LibrarySyncedSchema>;

/**
 * An upgrade moved copies onto today's shipped templates and roles
 * (docs/operations.md, Upgrading): one event for the whole upgrade, however
 * many copies it wrote. The page reads its lists and the plan again.
 */
export const LibraryUpgradedSchema = Type.Object(
  {
    applied: Type.Integer({ minimum: 0, description: 'copies upgraded' }),
    skipped: Type.Integer({ minimum: 0, description: 'copies asked for (or in the plan) that were left as they are' }),
    names: Type.Array(Type.String(), { maxItems: 100, description: 'the first 100 upgraded, as `template:<name>` or `role:<name>`' }),
    who: Who,
  },
  { additionalProperties: false },
);
export type LibraryUpgraded = Static<typeof LibraryUpgradedSchema>;

/** The stream's first event, and the answer to a Last-Event-ID the server cannot replay from. */
export const StreamNoticeSchema = Type.Object({ id: Type.String() }, { additionalProperties: false });
export type StreamNotice = Static<typeof StreamNoticeSchema>;

/** Every event type and its data. */
export interface DeskEventMap {
  'template.changed': EntryChanged;
  'role.changed': EntryChanged;
  'proposal.created': ProposalEvent;
  'proposal.decided': ProposalEvent;
  'launch.drafted': LaunchEvent;
  'launch.decided': LaunchEvent;
  'library.synced': LibrarySynced;
  'library.upgraded': LibraryUpgraded;
}
export type DeskEventType = keyof DeskEventMap;

/** An event as the bus keeps it: a type, its data and the stream id (`<epoch>.<seq>`). */
export type DeskEvent = { [K in DeskEventType]: { id: string; type: K; data: DeskEventMap[K] } }[DeskEventType];
