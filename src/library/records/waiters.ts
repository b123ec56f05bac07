/**
 * Requests waiting for a decision (`?wait=N` on a proposal or a launch
 * draft; docs/api.md). Event-driven: each waiter is a promise kept under its
 * record's id and settled by the decision (`wake`), by its timer, by its
 * client going away (`signal`) or by the service closing (`close`) —
 * whichever comes first; then its timer is cleared and it is forgotten. No
 * loop looks at anything while a request waits, so a waiting request costs
 * a timer and a few objects, no CPU.
 *
 * Their number is bounded (`max`, across every record the waiters serve):
 * each holds a connection open, and connections are file descriptors. Past
 * the bound a wait ends at once (`full`), so the request answers with the
 * record as it is, like a wait whose time ran out.
 */

/** Waits held at once unless told otherwise: well under the connections a process may hold (docs/operations.md). */
export const DEFAULT_MAX_WAITERS = 256;

/** Why a wait ended. */
export type WaitEnd = 'decided' | 'timeout' | 'aborted' | 'closed' | 'full';

interface Waiter {
  settle(why: WaitEnd): void;
}

export interface Waiters {
  /** Waits up to `ms` for `wake(id)`; `signal` ends it early (the client went away). After `close()`, or with `max` waiting, it ends at once. */
  wait(id: string, ms: number, signal?: AbortSignal): Promise<WaitEnd>;
  /** Ends every wait on `id`: it was decided. */
  wake(id: string): void;
  /** Ends every wait, now and later: the service stops. */
  close(): void;
  /** how many wait now (for tests and figures) */
  readonly size: number;
}

export interface WaitersOptions {
  /** the most waits held at once, on every id together; default DEFAULT_MAX_WAITERS */
  max?: number;
}

export function openWaiters(o: WaitersOptions = {}): Waiters {
  const max = o.max ?? DEFAULT_MAX_WAITERS;
  const byId = new Map<string, Set<Waiter>>();
  let closed = false;
  let size = 0;

  const endAll = (set: Iterable<Waiter>, why: WaitEnd) => {
    for (const w of [...set]) w.settle(why);
  };

  return {
    get size() {
      return size;
    },
    wait(id, ms, signal) {
      if (closed) return Promise.resolve('closed');
      if (signal?.aborted) return Promise.resolve('aborted');
      if (size >= max) return Promise.resolve('full');
      return new Promise<WaitEnd>((resolve) => {
        const set = byId.get(id) ?? new Set<Waiter>();
        byId.set(id, set);
        const waiter: Waiter = {
          settle(why) {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            const own = byId.get(id);
            if (own?.delete(waiter)) {
              size -= 1;
              if (own.size === 0) byId.delete(id);
            }
            resolve(why);
          },
        };
        const timer = setTimeout(() => waiter.settle('timeout'), ms);
        const onAbort = () => waiter.settle('aborted');
        signal?.addEventListener('abort', onAbort, { once: true });
        set.add(waiter);
        size += 1;
      });
    },
    wake(id) {
      const set = byId.get(id);
      if (set) endAll(set, 'decided');
    },
    close() {
      closed = true;
      for (const set of [...byId.values()]) endAll(set, 'closed');
    },
  };
}

/**
 * A record read at once when decided, else once it is decided or the wait
 * ends (`ms`; `signal`: the client went away) — read again then, so the
 * answer is what is on disk. The waiter is registered before the first read,
 * so a decision landing between that read and the wait is not missed.
 */
export async function readWhenDecided<R extends { status: string }>(
  waiters: Waiters,
  id: string,
  ms: number,
  signal: AbortSignal | undefined,
  read: () => Promise<R>,
): Promise<R> {
  const own = new AbortController();
  const stop = () => own.abort();
  signal?.addEventListener('abort', stop, { once: true });
  const ended = waiters.wait(id, ms, own.signal);
  try {
    const first = await read();
    if (first.status !== 'pending') return first;
    await ended;
    return await read();
  } finally {
    // a wait still open (decided at the first read, or a read that failed) is dropped with its timer
    own.abort();
    signal?.removeEventListener('abort', stop);
  }
}
