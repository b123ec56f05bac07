/**
 * How a failed request is logged beyond its request line (docs/operations.md,
 * Logs): a fault of the service at `error` with its stack, which only the log
 * may hold; an expected refusal of status 5xx by what it asks of the
 * operator, in one line without a stack, since there is no fault to trace.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { ErrorCode } from '../errors.js';

/**
 * The 5xx codes that are refusals the service meant, not faults:
 * - `warn`: routine, passes by itself (no history on this desk, too many
 *   streams open, the service stopping);
 * - `error`: needs the operator (a library folder that cannot be written: a
 *   full disk, a read-only mount), but the stack would show only the write.
 */
export const EXPECTED_REFUSALS: Partial<Record<ErrorCode, 'warn' | 'error'>> = {
  history_unavailable: 'warn',
  too_many_subscribers: 'warn',
  shutting_down: 'warn',
  library_unwritable: 'error',
};

/** The error line of a 5xx answer, if it has one: every other failure is told by the request line alone. */
export function logFailure(log: FastifyBaseLogger, body: { status: number; code: ErrorCode; detail?: string | undefined }, err: unknown): void {
  if (body.status < 500) return;
  const level = EXPECTED_REFUSALS[body.code];
  if (level) log[level]({ code: body.code, status: body.status, detail: body.detail }, 'request refused');
  else log.error({ err }, 'request failed');
}
