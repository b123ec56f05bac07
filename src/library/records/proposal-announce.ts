import type { ProposalEvent } from '../../schema/events.js';
import type { ProposalSummary } from '../../schema/proposals.js';
import { proposalRecord, rel } from '../layout.js';
import type { Library } from '../types.js';

/** What a record on disk says: kept (`created`), or saved or dismissed (`decided`). */
export type ProposalChange = 'created' | 'decided';

export interface ProposalAnnouncer {
  /** a record this store wrote is on disk: its commit, then its event; `who`: who made it (else the decider, `decided_by`) */
  written(kind: ProposalChange, p: ProposalSummary, who?: string | null): void;
  /** a record this store wrote only to finish an interrupted save: its commit; no one asked, so no event */
  finished(p: ProposalSummary): void;
  /** a record a sync wrote: the round's commit holds it, so its event only */
  synced(kind: ProposalChange, p: ProposalSummary): void;
}

/** `proposal <id> for <name>` while pending, `proposal <id> saved` / `dismissed` once decided (docs/history.md, Commits). */
export function commitMessage(p: ProposalSummary): string {
  return p.status === 'pending' ? `proposal ${p.id} for ${p.name}` : `proposal ${p.id} ${p.status}`;
}

/** A saved proposal is told under the name it was saved as, which the desk launches; a decision says whether the operator edited it, and who decided. */
export function eventData(p: ProposalSummary): ProposalEvent {
  const told = { id: p.id, status: p.status, name: p.saved_as ?? p.name, etag: p.etag, note: p.note };
  return p.status === 'pending' ? told : { ...told, edited: p.edited, who: p.decided_by };
}

/**
 * What follows a proposal's record on disk (docs/history.md, docs/api.md
 * Events): its own commit — a proposal saved into a template is that save's
 * commit too, made by the save — then `proposal.created` or
 * `proposal.decided` on the library's bus, then `told` (a test's listener).
 * A creation's commit is the proposer's and a decision's the decider's
 * (`decided_by`): its author and `Who:` trailer (docs/history.md) — the
 * person when the desk knows one, else the client address (authored then
 * by DESK_AUTHOR).
 * A stand-in library (test/docs-api.test.ts) may have neither history nor a
 * bus; then there is nothing to commit or tell.
 */
export function proposalAnnouncer(library: Library, told?: (kind: ProposalChange, p: ProposalSummary) => void): ProposalAnnouncer {
  const events = library.events as Library['events'] | undefined;
  const history = library.history as Library['history'] | undefined;
  const commit = (p: ProposalSummary, who: string | null = p.decided_by) =>
    history?.commit({ paths: [rel(proposalRecord(p.id))], message: commitMessage(p), ...(who ? { who } : {}) });
  const tell = (kind: ProposalChange, p: ProposalSummary) => {
    events?.publish(kind === 'created' ? 'proposal.created' : 'proposal.decided', eventData(p));
    told?.(kind, p);
  };
  return {
    written(kind, p, who) {
      commit(p, who ?? p.decided_by);
      tell(kind, p);
    },
    finished: (p) => commit(p),
    synced: tell,
  };
}
