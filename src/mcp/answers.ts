/**
 * Records → tool results: a proposal as `POST /api/desk/proposals` answers
 * it, a launch draft as `POST /api/desk/launches` does, and the decision
 * await_decision reports. Plain objects, each exactly its result schema.
 */
import type { LaunchView } from '../library/records-contract.js';
import { proposalCard } from '../library/proposals/card.js';
import { type ProposalRecord, summaryOf } from '../library/proposals/record.js';
import type { Library } from '../library/types.js';
import type { LaunchAnswer } from '../schema/launches.js';
import type { ProposalAnswer } from '../schema/proposals.js';
import type { DecisionAnswer } from './schemas.js';

/** The proposal with its card against the library as it is now, as the proposal routes answer it. */
export async function proposalAnswer(library: Library, r: ProposalRecord): Promise<ProposalAnswer> {
  const card = await proposalCard(library, { name: r.name, purpose: r.purpose, source: r.source });
  return { ...summaryOf(r), source: r.source, valid: card.valid, problems: card.problems, card };
}

/** The draft as the launch routes answer it. */
export function draftAnswer({ rec, preview, current }: LaunchView): LaunchAnswer {
  return {
    id: rec.id,
    status: rec.status,
    template: rec.template,
    etag: rec.etag,
    from: rec.from,
    note: rec.note,
    decision_note: rec.decision_note,
    created_at: rec.created_at,
    decided_at: rec.decided_at,
    decided_by: rec.decided_by,
    inputs: rec.inputs,
    preview,
    runs: rec.status === 'approved' ? preview.runs : null,
    current_etag: current,
    changed: rec.status === 'pending' && current !== rec.etag,
  };
}

export function proposalDecision(r: ProposalRecord): DecisionAnswer {
  return {
    kind: 'proposal',
    id: r.id,
    status: r.status,
    name: r.name,
    saved_as: r.saved_as,
    edited: r.edited,
    note: r.note,
    decided_by: r.decided_by,
    decided_at: r.decided_at,
    runs: null,
  };
}

export function launchDecision(v: LaunchView): DecisionAnswer {
  const { rec } = v;
  return {
    kind: 'launch',
    id: rec.id,
    status: rec.status,
    name: rec.template,
    saved_as: null,
    edited: false,
    note: rec.decision_note,
    decided_by: rec.decided_by,
    decided_at: rec.decided_at,
    runs: rec.status === 'approved' ? v.preview.runs : null,
  };
}

/** The decision in a sentence, for hosts that show only text. */
export function decisionText(d: DecisionAnswer): string {
  const what = `${d.kind === 'proposal' ? 'proposal' : 'launch draft'} ${d.id} (${d.name})`;
  switch (d.status) {
    case 'pending':
      return `${what} is still pending: the operator has not decided. Call await_decision again.`;
    case 'saved':
      return `${what} was saved as ${d.saved_as}${d.edited ? ', with the operator’s edits' : ''} by ${d.decided_by}. draft_launch can carry it now.`;
    case 'approved':
      return `${what} was approved by ${d.decided_by}: ${d.runs?.length ?? 0} run(s) to start.`;
    case 'withdrawn':
      return `${what} was withdrawn by ${d.decided_by}.`;
    default:
      return `${what} was dismissed by ${d.decided_by}${d.note ? `: ${d.note}` : ' without a note'}.`;
  }
}
