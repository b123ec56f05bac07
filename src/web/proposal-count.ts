import { call } from './api.js';
import type { ProposalList } from '../schema/proposals.js';

/**
 * The header link's count of proposals waiting for a decision. Its own small
 * module: every view refreshes it, and the Proposals view itself (cards,
 * diffs, CodeMirror) is loaded only when opened. Quiet on failure: the views
 * report their own errors.
 */
export async function refreshProposalCount(): Promise<void> {
  const link = document.getElementById('proposals-link');
  const count = document.getElementById('proposals-count');
  if (!link || !count) return;
  try {
    const { body } = await call<ProposalList>('GET', '/proposals?status=pending');
    count.textContent = body.pending ? String(body.pending) : '';
    count.hidden = body.pending === 0;
    link.setAttribute('aria-label', `Proposals, ${body.pending} pending`);
  } catch {
    // no count is better than a wrong one
    count.textContent = '';
    count.hidden = true;
  }
}
