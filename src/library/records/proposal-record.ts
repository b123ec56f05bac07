import { PROPOSAL_ID, type ProposalReplaced, type ProposalStatus, type ProposalSummary } from '../../schema/proposals.js';
import { ENTRY_STATES } from '../../schema/state.js';
import type { Problem } from '../../template/problems.js';
import { problem } from '../../template/problems.js';
import { LIMITS } from '../../template/read.js';
import type { ProposalRecord } from '../records-contract.js';
import { parseShape, type RecordShape } from './kind.js';

export type { ProposalRecord } from '../records-contract.js';

/** The record file of an id; anything else in proposals/ is not ours (a temp file aside). */
export const RECORD_FILE = new RegExp(`^(${PROPOSAL_ID.source.slice(1, -1)})\\.json$`);

/**
 * The most a record can take: a source within the template cap, whose JSON
 * escaping can make it up to six times longer, and the short fields. A larger
 * file was not written by the service and is skipped unread.
 */
export const RECORD_CAP = 6 * LIMITS.sizeBytes + 64 * 1024;

/** The note a proposal saved with the operator's edits is decided with (docs/api.md, Proposals), beside `edited`. */
export const EDITED_NOTE = 'saved with the operator’s edits';

const strOrNull = (v: unknown) => v === null || typeof v === 'string';

/** `replaced` as kept: null, or an ETag and a state; undefined when it is neither (not a record the service wrote). */
function replacedOf(v: unknown): ProposalReplaced | undefined {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) return undefined;
  const { etag, state } = v as Record<string, unknown>;
  if (typeof etag !== 'string' || !ENTRY_STATES.includes(state as never)) return undefined;
  return { etag, state: state as NonNullable<ProposalReplaced>['state'] };
}

const SHAPE: RecordShape = {
  statuses: ['pending', 'saved', 'dismissed'] satisfies ProposalStatus[],
  strings: ['name', 'purpose', 'created_at', 'source'],
  nullable: ['from', 'decided_at', 'saved_as', 'etag', 'note'],
};

/** The record in `text`, or null when it is not one the service wrote (a torn or hand-made file). */
export function parseRecord(text: string, id: string): ProposalRecord | null {
  const r = parseShape(text, id, SHAPE);
  if (!r) return null;
  if (r.edited !== undefined && typeof r.edited !== 'boolean') return null;
  const s = r.saving as Record<string, unknown> | null | undefined;
  if (s != null && (typeof s !== 'object' || typeof s.name !== 'string' || typeof s.etag !== 'string' || typeof s.at !== 'string')) return null;
  if (s != null && s.edited !== undefined && typeof s.edited !== 'boolean') return null;
  if (s != null && s.by !== undefined && !strOrNull(s.by)) return null;
  // one written before `replaced` was kept: not known, so null
  const replaced = replacedOf(r.replaced);
  const savingReplaced = s == null ? null : replacedOf(s.replaced);
  if (replaced === undefined || savingReplaced === undefined) return null;
  // a record or intent written before `edited` was kept: a save with edits said so only in its note
  const edited = (r.edited as boolean | undefined) ?? (r.status === 'saved' && r.note === EDITED_NOTE);
  // one written before `decided_by` was kept: nobody is known to have decided it
  const decided_by = (r.decided_by as string | null | undefined) ?? null;
  const saving =
    s == null
      ? null
      : { ...(s as NonNullable<ProposalRecord['saving']>), edited: (s.edited as boolean | undefined) ?? false, by: (s.by as string | null | undefined) ?? null, replaced: savingReplaced };
  return { ...(r as unknown as ProposalRecord), edited, decided_by, saving, replaced };
}

/** The list's view of a record: no source, no intent. */
export function summaryOf(r: ProposalRecord): ProposalSummary {
  return {
    id: r.id,
    status: r.status,
    name: r.name,
    purpose: r.purpose,
    from: r.from,
    created_at: r.created_at,
    decided_at: r.decided_at,
    saved_as: r.saved_as,
    etag: r.etag,
    note: r.note,
    edited: r.edited,
    decided_by: r.decided_by,
    replaced: r.replaced,
  };
}

/**
 * A proposal's purpose is one line, as a template's is (the same problem
 * codes, docs/problems.md), at `/purpose` of the request; a source over the
 * save's size cap is `limit.size` at `/source`, since it could never be saved.
 */
export function requestProblems(purpose: string, source: string): Problem[] {
  const out: Problem[] = [];
  const p = purpose.trim();
  if (p === '') out.push(problem('purpose.empty', 'the proposal has no purpose; write one line saying why it is proposed', '/purpose'));
  else if (/[\n\r]/.test(p)) out.push(problem('purpose.multiline', "the proposal's purpose has a line break; make it one line", '/purpose'));
  if (source.length > LIMITS.sizeBytes || Buffer.byteLength(source, 'utf8') > LIMITS.sizeBytes) {
    out.push(problem('limit.size', `the source is over the ${LIMITS.sizeBytes / 1024} KiB a template may be; it could never be saved`, '/source'));
  }
  return out;
}
