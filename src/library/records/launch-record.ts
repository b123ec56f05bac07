import { LAUNCH_ID, type LaunchStatus, type LaunchSummary } from '../../schema/launches.js';
import { ROLE_FILE_CAP } from '../disk/fs-safe.js';
import type { LaunchRecord } from '../records-contract.js';
import { parseShape, type RecordShape } from './kind.js';

export type { LaunchRecord } from '../records-contract.js';

/** The record file of an id; anything else in launches/ is not ours (a temp file aside). */
export const RECORD_FILE = new RegExp(`^(${LAUNCH_ID.source.slice(1, -1)})\\.json$`);

/**
 * The most a record may be: 1 MiB, what history reads of a file that is
 * not a template. A draft whose record would be larger is refused
 * (`limit.size`); a larger file was not written by the service and is
 * skipped unread.
 */
export const RECORD_CAP = ROLE_FILE_CAP;

/**
 * The most a draft's inputs may be, as UTF-8 JSON: 64 KiB — tickets and
 * short texts, not documents. Every draft is a record and a history commit
 * kept for good, so the cap bounds what a conductor can add to history.
 */
export const INPUTS_CAP = 64 * 1024;

const SHAPE: RecordShape = {
  statuses: ['pending', 'approved', 'dismissed', 'withdrawn'] satisfies LaunchStatus[],
  strings: ['template', 'etag', 'created_at', 'source'],
  nullable: ['from', 'note', 'decision_note', 'decided_at'],
};

/** The record in `text`, or null when it is not one the service wrote (a torn or hand-made file). */
export function parseRecord(text: string, id: string): LaunchRecord | null {
  const r = parseShape(text, id, SHAPE);
  if (!r) return null;
  if (r.inputs === null || typeof r.inputs !== 'object' || Array.isArray(r.inputs)) return null;
  // one written before `decided_by` was kept: nobody is known to have decided it
  return { ...(r as unknown as LaunchRecord), decided_by: (r.decided_by as string | null | undefined) ?? null };
}

/** The list's view of a record: no inputs, no source. */
export function summaryOf(r: LaunchRecord): LaunchSummary {
  return {
    id: r.id,
    status: r.status,
    template: r.template,
    etag: r.etag,
    from: r.from,
    note: r.note,
    decision_note: r.decision_note,
    created_at: r.created_at,
    decided_at: r.decided_at,
    decided_by: r.decided_by,
  };
}
