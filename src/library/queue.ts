/**
 * Runs tasks of one key one at a time, in arrival order (saves and
 * resets of one name are serialised inside the process).
 * Different keys run concurrently. `idle()` resolves once everything queued so
 * far has settled, for close().
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
