/**
 * The library's entries as the desk answers them, over HTTP (src/http) and
 * over MCP (src/mcp) alike: a template with its card, a proposal with its
 * card against the library as it is now, a launch draft with its preview.
 * Plain objects, each exactly its schema in src/schema; one shape, so a
 * conductor reads the same facts through either door.
 */
import type { LaunchAnswer } from '../schema/launches.js';
import type { ProposalAnswer } from '../schema/proposals.js';
import { proposalCard } from './records/proposal-card.js';
import { type ProposalRecord, summaryOf } from './records/proposal-record.js';
import type { LaunchView } from './records-contract.js';
import type { Library, TemplateDetail } from './types.js';

/** A template's answer; `d` carries its card (the library builds it when asked: `{ card: true }`). */
export function templateAnswer(d: TemplateDetail) {
  if (!d.card) throw new Error(`the answer for ${d.name} was read without its card`);
  return {
    name: d.name,
    state: d.state,
    shipped: d.shipped,
    read_only: d.read_only,
    edited_outside: d.edited_outside,
    source: d.source,
    shipped_source: d.shipped_source,
    valid: d.valid,
    problems: d.problems,
    card: d.card,
    ...(d.diverged ? { diverged: d.diverged } : {}),
  };
}

/** The proposal with its card against the library as it is now. */
export async function proposalAnswer(library: Library, r: ProposalRecord): Promise<ProposalAnswer> {
  const card = await proposalCard(library, { name: r.name, purpose: r.purpose, source: r.source });
  return { ...summaryOf(r), source: r.source, valid: card.valid, problems: card.problems, card };
}

/** A launch draft with its preview; `changed` when its template moved since it was drafted. */
export function launchAnswer({ rec, preview, current }: LaunchView): LaunchAnswer {
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
