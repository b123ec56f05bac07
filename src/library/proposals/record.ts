import { PROPOSAL_ID, type ProposalStatus, type ProposalSummary } from '../../schema/proposals.js';
import type { Problem } from '../../template/problems.js';
import { problem } from '../../template/problems.js';
import { LIMITS } from '../../template/read.js';

/**
 * One proposal as it is kept: `proposals/<id>.json` under the library root,
 * one JSON object, written whole with the atomic writes. `saving` is the
 * save's intent (proposals.ts): the name and ETag it is about to save.
 */
export interface ProposalRecord extends ProposalSummary {
  v: 1;
  source: string;
  saving: { name: string; etag: string; at: string } | null;
}

/** The record file of an id; anything else in proposals/ is not ours (a temp file aside). */
export const RECORD_FILE = new RegExp(`^(${PROPOSAL_ID.source.slice(1, -1)})\\.json$`);

/**
 * The most a record can take: a source within the template cap, whose JSON
 * escaping can make it up to six times longer, and the short fields. A larger
 * file was not written by the service and is skipped unread.
 */
export const RECORD_CAP = 6 * LIMITS.sizeBytes + 64 * 1024;

const STATUSES: readonly ProposalStatus[] = ['pending', 'saved', 'dismissed'];
const strOrNull = (v: unknown) => v === null || typeof v === 'string';

/** The record in `text`, or null when it is not one the service wrote (a torn or hand-made file). */
export function parseRecord(text: string, id: string): ProposalRecord | null {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (r === null || typeof r !== 'object' || Array.isArray(r)) return null;
  if (r.v !== 1 || r.id !== id || !STATUSES.includes(r.status as ProposalStatus)) return null;
  for (const k of ['name', 'purpose', 'created_at', 'source'] as const) if (typeof r[k] !== 'string') return null;
  for (const k of ['from', 'decided_at', 'saved_as', 'etag', 'note'] as const) if (!strOrNull(r[k])) return null;
  const s = r.saving as Record<string, unknown> | null | undefined;
  if (s != null && (typeof s !== 'object' || typeof s.name !== 'string' || typeof s.etag !== 'string' || typeof s.at !== 'string')) return null;
  return { ...(r as unknown as ProposalRecord), saving: (s as ProposalRecord['saving']) ?? null };
}

export function formatRecord(r: ProposalRecord): string {
  return `${JSON.stringify(r)}\n`;
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
