/**
 * How many proposals, or launch drafts, one person (else one client
 * address: asker.ts) may create (docs/api.md, Proposals, Bounds): `perHour`
 * at once, then one each `3600 / perHour` seconds as the allowance
 * refills — a token bucket, kept as GCRA keeps one (the time its bucket will
 * be full again, one number per client). A token bucket rather
 * than a sliding window: no list of times per client, an exact wait to
 * answer (`Retry-After`), and a client whose bucket is full again is
 * indistinguishable from one never seen, so it is simply forgotten.
 *
 * Memory is bounded: full buckets are dropped at most once a minute, and
 * past `maxClients` the client that created least recently is forgotten
 * (so a flood of addresses costs at most `maxClients` entries; a forgotten
 * client starts again with a full allowance).
 */

import { DeskError } from '../../errors.js';
import { allowanceKey, type Asker } from './asker.js';

/** DESK_PROPOSALS_PER_HOUR unless set. */
export const DEFAULT_PROPOSALS_PER_HOUR = 120;

/** DESK_LAUNCHES_PER_HOUR unless set: as many drafts as proposals. */
export const DEFAULT_LAUNCHES_PER_HOUR = 120;

const HOUR_MS = 3_600_000;
const SWEEP_MS = 60_000;

export interface CreateRateOptions {
  /** creates per client an hour; 0: no limit */
  perHour: number;
  /** clock in ms; default Date.now (tests pass their own) */
  now?: () => number;
  /** the most clients remembered at once; default 10000 */
  maxClients?: number;
}

export interface CreateRate {
  /** takes one create from the client's allowance: 0 when allowed, else the whole seconds until one is (nothing taken) */
  take(client: string): number;
  /** clients remembered now (for tests) */
  readonly size: number;
}

/** An allowance spent: too_many_requests, with the whole seconds until the next create is allowed (HTTP's Retry-After). */
export class AllowanceSpent extends DeskError {
  readonly retryAfter: number;
  constructor(detail: string, retryAfter: number) {
    super('too_many_requests', detail);
    this.retryAfter = retryAfter;
  }
}

/**
 * Takes one create from the asker's allowance (per person when the request
 * names one, else per address: asker.ts), or throws AllowanceSpent.
 */
export function takeAllowance(rate: CreateRate, asker: Asker, perHour: number, what: string): void {
  const wait = rate.take(allowanceKey(asker));
  if (wait === 0) return;
  const whose = asker.person !== null ? asker.person : 'this client address';
  throw new AllowanceSpent(`${whose} has created its ${perHour} ${what} for the hour; the next is allowed in ${wait} s`, wait);
}

export function createRate(o: CreateRateOptions): CreateRate {
  const now = o.now ?? Date.now;
  const maxClients = o.maxClients ?? 10_000;
  const step = o.perHour > 0 ? HOUR_MS / o.perHour : 0;
  // the allowance a full bucket holds, as time: perHour - 1 more may follow the first at once
  const burst = step * (o.perHour - 1);
  /** client → when its bucket is full again (ms); in the order they last created */
  const full = new Map<string, number>();
  let swept = now();

  const sweep = (t: number) => {
    swept = t;
    for (const [client, at] of full) if (at <= t) full.delete(client);
  };

  return {
    get size() {
      return full.size;
    },
    take(client) {
      if (step === 0) return 0;
      const t = now();
      if (t - swept >= SWEEP_MS) sweep(t);
      const at = Math.max(full.get(client) ?? t, t);
      const wait = at - burst - t;
      if (wait > 0) return Math.max(1, Math.ceil(wait / 1000));
      full.delete(client);
      if (full.size >= maxClients) {
        sweep(t);
        // still full of busy clients: forget the one that created least recently
        if (full.size >= maxClients) full.delete(full.keys().next().value!);
      }
      full.set(client, at + step);
      return 0;
    },
  };
}
