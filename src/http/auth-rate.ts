/**
 * Failed authentication, counted per client address (docs/security.md,
 * Users and roles): after `max` failures within `windowMs`, every /api
 * request from that address is `429 too_many_requests` with Retry-After
 * until the window that began with its first failure ends — the right token
 * included, so guessing costs the window whatever the guess. Only failures
 * count — a credential presented that matches no one (auth.ts): a client that
 * authenticates is never slowed, nor one that sends none (the container's
 * health probe). In memory, bounded.
 */

export interface AuthRateOptions {
  /** failures allowed in a window; default 20 */
  max?: number;
  /** the window, in ms; default 60 000 */
  windowMs?: number;
  /** clock in ms; default Date.now (tests pass their own) */
  now?: () => number;
}

/** addresses remembered at most; the oldest window is dropped first (a spray of addresses cannot grow memory) */
const MAX_ADDRESSES = 10_000;

export interface AuthRate {
  /** seconds until `address` may try again; 0: it may now */
  blocked(address: string): number;
  /** one more failure from `address` */
  failed(address: string): void;
}

export function createAuthRate(o: AuthRateOptions = {}): AuthRate {
  const max = o.max ?? 20;
  const windowMs = o.windowMs ?? 60_000;
  const now = o.now ?? Date.now;
  // insertion order is window-start order: a window is re-inserted when it begins again
  const windows = new Map<string, { start: number; count: number }>();
  const current = (address: string) => {
    const w = windows.get(address);
    if (w && now() - w.start >= windowMs) {
      windows.delete(address);
      return undefined;
    }
    return w;
  };
  return {
    blocked(address) {
      const w = current(address);
      if (!w || w.count < max) return 0;
      return Math.max(1, Math.ceil((w.start + windowMs - now()) / 1000));
    },
    failed(address) {
      const w = current(address);
      if (w) {
        w.count++;
        return;
      }
      windows.set(address, { start: now(), count: 1 });
      if (windows.size > MAX_ADDRESSES) windows.delete(windows.keys().next().value!);
    },
  };
}
