/**
 * Failed authentication, counted per client address (docs/security.md,
 * Users and roles): after `max` failures within `windowMs` the address is
 * blocked until the window that began with its first failure ends. While it
 * is, a token that has already authenticated to this process within
 * `knownMs` (24 h) still passes, and every other request from it is `429
 * too_many_requests` with Retry-After — a right token never seen, a wrong
 * one, none at all — so a guesser learns nothing from a blocked address,
 * and a local process that guesses cannot lock the operator out.
 *
 * Only failures count — a credential presented that matches no one
 * (auth.ts): a client that authenticates is never slowed, nor one that sends
 * none (the container's health probe). In memory, bounded: tokens are kept
 * as their sha256 digests, never as themselves, and both tables drop their
 * oldest entry past their cap.
 */

export interface AuthRateOptions {
  /** failures allowed in a window; default 20 */
  max?: number;
  /** the window, in ms; default 60 000 */
  windowMs?: number;
  /** how long a token that authenticated still passes a blocked address, in ms; default 24 h */
  knownMs?: number;
  /** clock in ms; default Date.now (tests pass their own) */
  now?: () => number;
}

/** addresses remembered at most; the oldest window is dropped first (a spray of addresses cannot grow memory) */
const MAX_ADDRESSES = 10_000;
/**
 * token digests remembered at most (about 1.5 MB): only a token that
 * authenticated is remembered, so only the users file's tokens and the ones
 * rotated away can fill it; the least recently used is dropped first.
 */
export const MAX_KNOWN_TOKENS = 10_000;

export interface AuthRate {
  /** seconds until `address` may try again; 0: it may now */
  blocked(address: string): number;
  /** one more failure from `address` */
  failed(address: string): void;
  /** the token with this sha256 authenticated just now */
  succeeded(digest: string): void;
  /** the token with this sha256 authenticated within the last `knownMs` */
  known(digest: string): boolean;
}

export function createAuthRate(o: AuthRateOptions = {}): AuthRate {
  const max = o.max ?? 20;
  const windowMs = o.windowMs ?? 60_000;
  const knownMs = o.knownMs ?? 24 * 3_600_000;
  const now = o.now ?? Date.now;
  // insertion order is window-start order: a window is re-inserted when it begins again
  const windows = new Map<string, { start: number; count: number }>();
  // digest → when it last authenticated; insertion order is last-use order (re-inserted on each success)
  const known = new Map<string, number>();
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
    succeeded(digest) {
      known.delete(digest);
      known.set(digest, now());
      if (known.size > MAX_KNOWN_TOKENS) known.delete(known.keys().next().value!);
    },
    known(digest) {
      const at = known.get(digest);
      if (at === undefined) return false;
      if (now() - at < knownMs) return true;
      known.delete(digest);
      return false;
    },
  };
}
