/**
 * Who a request is, as the record stores take it (library/records/asker.ts):
 * the person and role the guard found (src/http/auth.ts), and the address.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AllowanceSpent, type Asker } from '../../library/index.js';

export const askerOf = (req: FastifyRequest): Asker => ({ person: req.deskUser?.name ?? null, role: req.deskUser?.role ?? null, address: req.ip });

/** A create's answer; a spent allowance is its 429 with Retry-After (the whole seconds until the next is allowed). */
export async function retryAfter<T>(reply: FastifyReply, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    if (e instanceof AllowanceSpent) reply.header('retry-after', String(e.retryAfter));
    throw e;
  }
}
