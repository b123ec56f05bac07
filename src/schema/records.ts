/**
 * What proposals and launch drafts share as the routes take and answer them
 * (docs/api.md, Proposals and Launches): the id, the list and its filter,
 * the wait for a decision, a dismissal's note, and the fields every record
 * has. Each kind's own schema (proposals.ts, launches.ts) adds what is its
 * own. Node-free, so the page can import their types.
 */
import { type TArray, type TObject, type TSchema, Type } from '@sinclair/typebox';

/** `<ms since 1970, base36, 9 digits>-<80 random bits, hex>`: sorts by creation, cannot be guessed. */
export const RECORD_ID = /^[0-9a-z]{9}-[0-9a-f]{20}$/;

/** A record's id in a path; `from`: the answer that gives it. */
export const recordId = (from: string) => Type.String({ pattern: RECORD_ID.source, description: `time-sortable and random; from the ${from} answer` });

/** A record's `note` and a dismissal's: at most this many characters. */
export const NOTE_MAX = 2000;

/** Who made a record (`from`): at most this many characters. */
export const FROM_MAX = 200;

/** `?wait=` seconds: below the 60 s a silent connection is kept open (docs/operations.md). */
export const MAX_WAIT_SECONDS = 55;

/** `?wait=N` on GET /launches/:id and GET /proposals/:id: whole seconds, 1 to 55 (a query is text, never coerced). */
export const WaitQuery = Type.Object(
  {
    wait: Type.Optional(
      Type.String({
        pattern: '^([1-9]|[1-4][0-9]|5[0-5])$',
        description: `seconds to wait for a decision, 1 to ${MAX_WAIT_SECONDS}, when pending: the answer comes as soon as it is decided, else after this long, still pending`,
      }),
    ),
  },
  { additionalProperties: false },
);

/** GET /proposals and GET /launches: which records, by their status. */
export const RecordListQuery = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('decided'), Type.Literal('all')], { description: 'default pending' })),
  },
  { additionalProperties: false },
);

/** POST /proposals/:id/dismiss and POST /launches/:id/dismiss */
export const RecordDismissSchema = Type.Object(
  { note: Type.Optional(Type.String({ maxLength: NOTE_MAX, description: 'why, for the conductor' })) },
  { additionalProperties: false },
);

/** A string or null, as a record's optional fields are. */
export const NullableString = (description?: string) =>
  description === undefined ? Type.Union([Type.String(), Type.Null()]) : Type.Union([Type.String(), Type.Null()], { description });

/** The fields every record's summary has, in its order around the kind's own. */
export const RecordFields = {
  id: Type.String(),
  from: NullableString(),
  created_at: Type.String({ description: 'ISO 8601' }),
  decided_at: NullableString('ISO 8601; null while pending'),
};

/** The list's bounds, as the list answers them; `what`: the records (`proposals`, `drafts`). */
function keptDecided(what: string, description: string | undefined) {
  return Type.Object(
    {
      count: Type.Integer({ minimum: 0, description: `decided ${what} kept now` }),
      limit: Type.Integer({ minimum: 1, description: 'the most kept (DESK_DECIDED_KEEP); older decided ones are removed, their history stays' }),
    },
    description === undefined ? { additionalProperties: false } : { additionalProperties: false, description },
  );
}

/**
 * GET /proposals, GET /launches: the pending count and the kept bound
 * whatever the filter, then the records under `key`, newest first.
 * `what`: the records in the counts' words; `kept`: the bound's own description.
 */
export function recordListSchema<K extends string, T extends TSchema>(key: K, item: T, what: string, kept?: string) {
  const records = { [key]: Type.Array(item, { description: 'newest first' }) } as { [P in K]: TArray<T> };
  return Type.Object({
    pending: Type.Integer({ minimum: 0, description: `how many ${what} wait for a decision, whatever the filter` }),
    kept_decided: keptDecided(what, kept),
    ...records,
  }) as TObject<{ pending: ReturnType<typeof Type.Integer>; kept_decided: ReturnType<typeof keptDecided> } & { [P in K]: TArray<T> }>;
}
