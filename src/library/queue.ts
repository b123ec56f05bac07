/**
 * The one serializer of the library: tasks of one key run one at a time, in
 * arrival order; different keys run concurrently. A task that fails (or
 * throws before its first await) fails only its own caller: the next task of
 * its key still runs. `idle()` resolves once everything queued so far — and
 * anything queued meanwhile — has settled, for close() and stop().
 *
 * Its users: a name's write slot (the key is the name), the history's
 * commits (one key: one git writer at a time) and sync's rounds and pushes
 * (one key: one round at a time). A key's entry is forgotten once nothing
 * is queued behind it, so the map holds only keys with work.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const result = prev.then(task, task);
    const tail = result.catch(() => {});
    this.tails.set(key, tail);
    // forget the key once nothing is queued behind this task
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  async idle(): Promise<void> {
    while (this.tails.size) await Promise.all([...this.tails.values()]);
  }
}
