/**
 * What a kind of record brings to the one record store (store.ts): its
 * folder and file names (layout.ts), how its file is read and checked, what
 * its list shows, the words its commits, events, log lines and refusals
 * use, and its bounds. Everything else — the index, the waits, retention,
 * the allowance, the order of a create and a decision — is the store's, the
 * same for every kind. The kinds: a proposal (proposal.ts), a launch
 * draft (launch.ts).
 */
import type { DeskError } from '../../errors.js';
import type { DeskEventMap } from '../../schema/events.js';
import type { RecordFolder } from '../disk/record-folder.js';
import type { Segments } from '../layout.js';
import type { Decidable } from './retention.js';

/** One event on the library's bus, typed by its name. */
export type RecordEvent = { [K in keyof DeskEventMap]: { type: K; data: DeskEventMap[K] } }[keyof DeskEventMap];

/**
 * A kind of record. `C`: the changes a record of it goes through besides
 * its decision (`decided`, every kind's): a proposal is `created`, a launch
 * draft `drafted` and maybe `refreshed`.
 */
export interface RecordKind<R extends { id: string }, S extends Decidable, C extends string> extends RecordFolder<R> {
  /** what the records are called in log lines and errors: `proposals`, `launch drafts` */
  plural: string;
  /** one record in a log line or a refusal: `proposal`, `launch draft` */
  noun: string;
  path(id: string): Segments;
  /** what the index keeps of a record: its list entry */
  summary(r: R): S;
  /** what a log line says of a record besides its id and status */
  about(s: S): Record<string, unknown>;
  /** the change a new record is */
  created: C;
  /** the subject of the commit of a record written (docs/history.md, Commits) */
  commitMessage(change: C | 'decided', s: S): string;
  /** what the bus is told of a change, or null when nobody is (docs/api.md, Events) */
  event(change: C | 'decided', s: S): RecordEvent | null;
  /** the refusal of a create while `count` records wait for a decision, the most there may be */
  tooMany(count: number): DeskError;
  /** the refusal of a new record whose file would be over `cap`; none: a valid request cannot make one */
  tooLarge?(cap: number): DeskError;
  /** creates one person (else one client address) may make an hour unless told otherwise */
  perHour: number;
}

/** A record's file: one JSON object and a newline. */
export const formatRecord = (r: object): string => `${JSON.stringify(r)}\n`;

const strOrNull = (v: unknown) => v === null || typeof v === 'string';

/** The fields every kind checks alike; the kind checks the rest. */
export interface RecordShape {
  statuses: readonly string[];
  /** fields that are strings */
  strings: readonly string[];
  /** fields that are a string or null */
  nullable: readonly string[];
}

/**
 * The object in `text` when it has the shape every record the service
 * writes has (version 1, the id of its file name, a known status, `shape`'s
 * fields of their types), else null: a torn or hand-made file. `decided_by`
 * may be missing (a record decided before it was kept): the kind says null.
 */
export function parseShape(text: string, id: string, shape: RecordShape): Record<string, unknown> | null {
  let r: unknown;
  try {
    r = JSON.parse(text);
  } catch {
    return null;
  }
  if (r === null || typeof r !== 'object' || Array.isArray(r)) return null;
  const o = r as Record<string, unknown>;
  if (o.v !== 1 || o.id !== id || !shape.statuses.includes(o.status as string)) return null;
  if (!shape.strings.every((k) => typeof o[k] === 'string') || !shape.nullable.every((k) => strOrNull(o[k]))) return null;
  if (o.decided_by !== undefined && !strOrNull(o.decided_by)) return null;
  return o;
}
