import { call } from './api.js';
import type { LaunchList } from '../schema/launches.js';
import type { ProposalList } from '../schema/proposals.js';

/**
 * The header link's count of proposals waiting for a decision. Its own small
 * module: every view refreshes it, and the Proposals view itself (cards,
 * diffs, CodeMirror) is loaded only when opened. Quiet on failure: the views
 * report their own errors.
 */
export async function refreshProposalCount(): Promise<void> {
  // the Launches link counts its drafts the same way
  await Promise.all([
    showCount('proposals', 'Proposals', async () => (await call<ProposalList>('GET', '/proposals?status=pending')).body.pending),
    showCount('launches', 'Launches', async () => (await call<LaunchList>('GET', '/launches?status=pending')).body.pending),
  ]);
}

async function showCount(id: string, label: string, pending: () => Promise<number>): Promise<void> {
  const link = document.getElementById(`${id}-link`);
  const count = document.getElementById(`${id}-count`);
  if (!link || !count) return;
  try {
    const n = await pending();
    count.textContent = n ? String(n) : '';
    count.hidden = n === 0;
    link.setAttribute('aria-label', `${label}, ${n} pending`);
  } catch {
    // no count is better than a wrong one
    count.textContent = '';
    count.hidden = true;
  }
}
