/**
 * Who asks a record store for something (proposals, launch drafts): the
 * person when the desk knows one, their role, and the client address. Every
 * caller — the HTTP routes, a tool layer — passes it, so the rules that turn
 * on who asks (a conductor withdraws only its own drafts, the hourly
 * allowances, whose name a record and its commit carry) hold for all of them.
 */

import type { Asker } from '../records-contract.js';

export type { Asker, AskerRole } from '../records-contract.js';

/** The name a decision and a commit carry: the person, else the client address (as `decided_by` always has). */
export const whoIs = (a: Asker | null | undefined): string | null => (a ? (a.person ?? a.address) : null);

/** What an allowance counts against: the person when named, else the address (a bridge or proxy puts many people on one). */
export const allowanceKey = (a: Asker): string => (a.person !== null ? `person:${a.person}` : `address:${a.address}`);
