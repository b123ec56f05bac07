import { call } from './api.js';
import type { MeAnswer, UserRoleName } from '../schema/users.js';

/**
 * Who the page is working for (GET /api/desk/me; docs/security.md, Users and
 * roles). Views ask `can(role)` where they build an action: an action the
 * role cannot take is left out, not shown disabled. Until the answer is in,
 * and on a desk that knows no users, the page is the operator's: everything.
 */
const RANK: readonly UserRoleName[] = ['viewer', 'conductor', 'editor'];

/**
 * The answer is kept where the whole page can see it: on the document's
 * root element (`data-desk-user`, `data-desk-role`), written once by
 * loadMe, so no module holds a copy of its own.
 */
const root = () => document.documentElement.dataset;

/** Reads GET /me once, before the first view is drawn; a failure leaves every action in (the service still refuses). */
export async function loadMe(): Promise<MeAnswer> {
  try {
    const me = (await call<MeAnswer>('GET', '/me')).body;
    if (me.name !== null) root().deskUser = me.name;
    root().deskRole = me.role;
  } catch {
    // an older service without /me, or a network error: the actions stay, the service still says no
  }
  return whoAmI();
}

export const whoAmI = (): MeAnswer => ({ name: root().deskUser ?? null, role: (root().deskRole as UserRoleName | undefined) ?? 'editor' });

/** May the user take an action that needs `role`? */
export const can = (role: UserRoleName): boolean => RANK.indexOf(whoAmI().role) >= RANK.indexOf(role);

/**
 * The line under the header for someone who cannot change the library: a
 * viewer reads; a conductor reads here and proposes through the API. Null
 * for an editor, or a desk without users.
 */
export function roleNote(): string | null {
  const me = whoAmI();
  if (me.name === null || can('editor')) return null;
  return me.role === 'conductor'
    ? `You are viewing as ${me.name}, a conductor: you propose templates and draft launches through the API; saving and deciding need the editor role.`
    : `You are viewing as ${me.name}, a viewer: you can read everything here; changing the library needs the editor role.`;
}
