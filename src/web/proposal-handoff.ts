import type { ProposalAnswer } from '../schema/proposals.js';

/**
 * A proposal opened in the editor of its name (proposals.ts "Open in
 * editor"): the template page takes it up when it opens that name, puts the
 * proposal's text in the editor unsaved, and its Save decides the proposal
 * (POST /proposals/:id/save with the edited `source`). One at a time, for
 * the tab: main.ts makes one and gives it to both views.
 */
export class ProposalHandoff {
  private open: ProposalAnswer | null = null;

  handOver(p: ProposalAnswer): void {
    this.open = p;
  }

  /** The proposal handed over for `name`, taken: a page opened later for the name edits it as usual. */
  takeOver(name: string): ProposalAnswer | null {
    if (this.open?.name !== name) return null;
    const p = this.open;
    this.open = null;
    return p;
  }
}
