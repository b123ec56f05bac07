/**
 * What `GET /api/desk/events` carries (docs/api.md, Events): one schema per
 * event's `data`, so the bus, the stream and the page share one shape.
 * Node-free, so the page can import the types.
 */
import { type Static, Type } from '@sinclair/typebox';
import { EntryStateSchema } from './state.js';

/** After a write through the service, or a change found on disk. `state` and `etag` are null once nothing of that name loads. */
export const EntryChangedSchema = Type.Object(
  {
    name: Type.String(),
    state: Type.Union([EntryStateSchema, Type.Null()]),
    etag: Type.Union([Type.String(), Type.Null()], { description: 'the strong ETag now, quoted; null when deleted' }),
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
  },
  { additionalProperties: false },
);
export type ProposalEvent = Static<typeof ProposalEventSchema>;

/** The stream's first event, and the answer to a Last-Event-ID the server cannot replay from. */
export const StreamNoticeSchema = Type.Object({ id: Type.String() }, { additionalProperties: false });
export type StreamNotice = Static<typeof StreamNoticeSchema>;

/** Every event type and its data. */
export interface DeskEventMap {
  'template.changed': EntryChanged;
  'role.changed': EntryChanged;
  'proposal.created': ProposalEvent;
  'proposal.decided': ProposalEvent;
}
export type DeskEventType = keyof DeskEventMap;

/** An event as the bus keeps it: a type, its data and the stream id (`<epoch>.<seq>`). */
export type DeskEvent = { [K in DeskEventType]: { id: string; type: K; data: DeskEventMap[K] } }[DeskEventType];
