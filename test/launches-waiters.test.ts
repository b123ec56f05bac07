// Waiting for a decision (src/library/records/waiters.ts): each wait ends
// once — by the decision, its timer, its client going away, or the service
// closing — and leaves nothing behind: no waiter kept, no timer running.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { openWaiters, readWhenDecided } from '../src/library/records/waiters.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('waiters', () => {
  test('a decision ends every wait on its id, and only those', async () => {
    vi.useFakeTimers();
    const w = openWaiters();
    const a = [w.wait('a', 30_000), w.wait('a', 30_000)];
    const b = w.wait('b', 30_000);
    expect(w.size).toBe(3);
    w.wake('a');
    expect(await Promise.all(a)).toEqual(['decided', 'decided']);
    expect(w.size).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    w.wake('b');
    expect(await b).toBe('decided');
    expect(vi.getTimerCount()).toBe(0);
  });

  test('the timer ends a wait no decision came for', async () => {
    vi.useFakeTimers();
    const w = openWaiters();
    const p = w.wait('a', 5_000);
    vi.advanceTimersByTime(4_999);
    expect(w.size).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await p).toBe('timeout');
    expect(w.size).toBe(0);
  });

  test('a client going away ends its wait; one already gone never waits', async () => {
    vi.useFakeTimers();
    const w = openWaiters();
    const ac = new AbortController();
    const p = w.wait('a', 30_000, ac.signal);
    ac.abort();
    expect(await p).toBe('aborted');
    expect(w.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(await w.wait('a', 30_000, ac.signal)).toBe('aborted');
  });

  test('past `max` waits on every id together, a wait ends at once (`full`) and holds nothing', async () => {
    vi.useFakeTimers();
    const w = openWaiters({ max: 2 });
    const held = [w.wait('a', 30_000), w.wait('b', 30_000)];
    expect(await w.wait('c', 30_000)).toBe('full');
    expect(w.size).toBe(2);
    expect(vi.getTimerCount()).toBe(2);
    w.wake('a');
    expect(await held[0]).toBe('decided');
    const again = w.wait('c', 30_000);
    expect(w.size).toBe(2);
    w.close();
    expect(await Promise.all([held[1], again])).toEqual(['closed', 'closed']);
  });

  test('readWhenDecided past the bound answers at once with the record as it is', async () => {
    const w = openWaiters({ max: 0 });
    let reads = 0;
    expect(await readWhenDecided(w, 'a', 30_000, undefined, async () => ({ status: 'pending', reads: ++reads }))).toEqual({ status: 'pending', reads: 2 });
    expect(w.size).toBe(0);
  });

  test('closing ends every wait, and later ones at once', async () => {
    vi.useFakeTimers();
    const w = openWaiters();
    const ps = [w.wait('a', 30_000), w.wait('b', 30_000)];
    w.close();
    expect(await Promise.all(ps)).toEqual(['closed', 'closed']);
    expect(await w.wait('c', 30_000)).toBe('closed');
    expect(vi.getTimerCount()).toBe(0);
  });

  test('readWhenDecided: decided at the first read answers at once and drops its wait; else reads again once decided', async () => {
    const w = openWaiters();
    expect(await readWhenDecided(w, 'a', 30_000, undefined, async () => ({ status: 'approved' }))).toEqual({ status: 'approved' });
    expect(w.size).toBe(0);
    let status = 'pending';
    const p = readWhenDecided(w, 'b', 30_000, undefined, async () => ({ status }));
    await new Promise((r) => setTimeout(r, 10));
    expect(w.size).toBe(1);
    status = 'dismissed';
    w.wake('b');
    expect(await p).toEqual({ status: 'dismissed' });
    expect(w.size).toBe(0);
  });

  test('readWhenDecided: a decision between the first read and the wait is not missed', async () => {
    const w = openWaiters();
    let status = 'pending';
    // the decision lands while the first read is under way, after the wait was registered
    const p = readWhenDecided(w, 'a', 30_000, undefined, async () => {
      const seen = { status };
      if (status === 'pending') {
        status = 'approved';
        w.wake('a');
      }
      return seen;
    });
    expect(await p).toEqual({ status: 'approved' });
  });
});
