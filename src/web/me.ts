import { call } from './api.js';
import type { MeAnswer, UserRoleName } from '../schema/users.js';

/**
 * Who the page is working for (GET /api/desk/me; docs/security.md, Users and
 * roles). Views ask `can(role)` where they build an action: an action the
 * role cannot take is left out, not shown disabled. Until the answer is in,
 * and on a desk that knows no users, the page is the operator's: everything.
 */
const RANK: readonly UserRoleName[] = ['viewer', 'conductor', 'editor'];
let me: MeAnswer = { name: null, role: 'editor' };

/** Reads GET /me once, before the first view is drawn; a failure leaves every action in (the service still refuses). */
export async function loadMe(): Promise<MeAnswer> {
  try {
    me = (await call<MeAnswer>('GET', '/me')).body;
  } catch {
    // an older service without /me, or a network error: the actions stay, the service still says no
  }
  return me;
}

export const whoAmI = (): MeAnswer => me;

/** May the user take an action that needs `role`? */
export const can = (role: UserRoleName): boolean => RANK.indexOf(me.role) >= RANK.indexOf(role);
