/**
 * The library's one serializer (src/library/queue.ts): the write slots, the
 * history's commits and sync's rounds all run through it, so its four
 * properties are what each of them relies on.
 */
import { describe, expect, test } from 'vitest';
import { KeyedQueue } from '../src/library/queue.js';

/** A promise and the hands that settle it. */
function gate<T = void>() {
  let open!: (v: T) => void;
  let fail!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    open = res;
    fail = rej;
  });
  return { promise, open, fail };
}

const ticks = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('KeyedQueue', () => {
  test('tasks of one key run one at a time, in arrival order', async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const gates = [gate(), gate(), gate()];
    const runs = gates.map((g, i) =>
      q.run('a', async () => {
        log.push(`start ${i}`);
        await g.promise;
        log.push(`end ${i}`);
        return i;
      }),
    );
    await ticks();
    expect(log).toEqual(['start 0']);
    // the last one opened first still waits for the two before it
    gates[2]!.open();
    gates[1]!.open();
    await ticks();
    expect(log).toEqual(['start 0']);
    gates[0]!.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  test('different keys do not wait for each other', async () => {
    const q = new KeyedQueue();
    const held = gate();
    const a = q.run('a', () => held.promise.then(() => 'a'));
    // b runs and finishes while a is still held
    expect(await q.run('b', async () => 'b')).toBe('b');
    held.open();
    expect(await a).toBe('a');
  });

  test('a failed task fails its own caller only; the next task of its key runs', async () => {
    const q = new KeyedQueue();
    const first = q.run('a', async () => {
      throw new Error('first');
    });
    // a task that throws before any await is a rejection too, not a broken chain
    const second = q.run('a', () => {
      throw new Error('second');
    });
    const third = q.run('a', async () => 'third');
    await expect(first).rejects.toThrow('first');
    await expect(second).rejects.toThrow('second');
    expect(await third).toBe('third');
  });

  test('idle() waits for every key, and for tasks queued while it waits', async () => {
    const q = new KeyedQueue();
    const done: string[] = [];
    const held = gate();
    void q.run('a', async () => {
      await held.promise;
      done.push('a');
      // queued behind nothing of its own key, after idle() was called
      void q.run('c', async () => {
        await ticks(2);
        done.push('c');
      });
    });
    void q.run('b', async () => {
      done.push('b');
    }).catch(() => {});
    let idle = false;
    const waiting = q.idle().then(() => {
      idle = true;
    });
    await ticks();
    expect(idle).toBe(false);
    held.open();
    await waiting;
    expect(done.sort()).toEqual(['a', 'b', 'c']);
  });

  test('idle() resolves after a failed task, and at once with nothing queued', async () => {
    const q = new KeyedQueue();
    await q.idle();
    q.run('a', async () => {
      throw new Error('x');
    }).catch(() => {});
    await q.idle();
    // the key was forgotten: a new task starts at once
    expect(await q.run('a', async () => 1)).toBe(1);
  });
});
