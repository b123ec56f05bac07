/**
 * The decision await_decision reports, and its sentence for hosts that show
 * only text. A proposal and a draft themselves are answered as the routes
 * answer them (src/library/answers.ts).
 */
import type { LaunchView, ProposalRecord } from '../library/index.js';
import type { DecisionAnswer } from './schemas.js';

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
