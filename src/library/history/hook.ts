import { AsyncLocalStorage } from 'node:async_hooks';
import { KeyedQueue } from '../queue.js';
import type { Library, RoleEntry, TemplateDetail, WriteOptions } from '../types.js';
import type { NameKey } from './snapshot.js';

/**
 * How the library's writes become commits (docs/history.md), in two parts
 * that meet through an AsyncLocalStorage:
 *
 * - recordWrites wraps each write (as events-announce.ts does) and runs it in
 *   a context that carries who asked and, once the write has answered, the
 *   commit's subject (`save quick-fix (edited)` needs the state after);
 * - RecordingQueue is the library's per-name queue with two hooks inside the
 *   name's slot: before the write (changes found on disk are committed
 *   first) and after it has landed (its bytes are taken, synchronously,
 *   before the slot passes to the next write of the name).
 *
 * The write's answer never waits for git: the commit is queued.
 */

export interface WriteContext {
  who: string | null;
  /** the subject, resolved when the write answers (or a fallback when it throws after landing) */
  message: Promise<string>;
  fallback: string;
}

export const writeContext = new AsyncLocalStorage<WriteContext>();

export interface SlotHooks {
  before(key: NameKey): void;
  after(key: NameKey, ctx: WriteContext | undefined): void;
}

export class RecordingQueue extends KeyedQueue {
  constructor(private readonly hooks: SlotHooks | null) {
    super();
  }

  override run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const hooks = this.hooks;
    if (!hooks || !/^(template|role):/.test(key)) return super.run(key, task);
    return super.run(key, async () => {
      hooks.before(key as NameKey);
      const out = await task();
      // a task that resolved has landed its write (template-ops.ts settle); one that threw changed nothing
      hooks.after(key as NameKey, writeContext.getStore());
      return out;
    });
  }
}

type Writes = Pick<Library, 'saveTemplate' | 'resetTemplate' | 'acknowledgeTemplate' | 'deleteTemplate' | 'saveRole' | 'resetRole' | 'deleteRole'>;

/** `save quick-fix (edited)`, `save my-flow`, `restore quick-fix to 1a2b3c4`, `save role reviewer`, … */
export function subject(op: keyof Writes, name: string, opts: WriteOptions | undefined, out: unknown): string {
  const role = op.endsWith('Role');
  const what = role ? `role ${name}` : name;
  if (opts?.restoredFrom) return `restore ${what} to ${opts.restoredFrom}`;
  const verb = op.replace(/(Template|Role)$/, '');
  const state = (out as TemplateDetail | RoleEntry | undefined)?.state;
  // the state after a save says what kind of copy it is; a custom template's is just `custom`
  return op === 'saveTemplate' && state && state !== 'custom' ? `save ${what} (${state})` : `${verb} ${what}`;
}

/** Where each write takes its options. */
const OPTS_AT: Record<keyof Writes, number> = {
  saveTemplate: 2,
  resetTemplate: 1,
  acknowledgeTemplate: 1,
  deleteTemplate: 1,
  saveRole: 3,
  resetRole: 1,
  deleteRole: 1,
};

export function recordWrites<T extends Writes>(ops: T): T {
  const wrap = <K extends keyof Writes>(op: K): T[K] =>
    (async (...args: unknown[]) => {
      const name = args[0] as string;
      const opts = args[OPTS_AT[op]] as WriteOptions | undefined;
      let resolve!: (s: string) => void;
      const fallback = subject(op, name, opts, undefined);
      const ctx: WriteContext = { who: opts?.who ?? null, message: new Promise((r) => (resolve = r)), fallback };
      try {
        const out = await writeContext.run(ctx, () => (ops[op] as (...a: unknown[]) => Promise<unknown>)(...args));
        resolve(subject(op, name, opts, out));
        return out;
      } finally {
        resolve(fallback);
      }
    }) as T[K];
  return {
    ...ops,
    saveTemplate: wrap('saveTemplate'),
    resetTemplate: wrap('resetTemplate'),
    acknowledgeTemplate: wrap('acknowledgeTemplate'),
    deleteTemplate: wrap('deleteTemplate'),
    saveRole: wrap('saveRole'),
    resetRole: wrap('resetRole'),
    deleteRole: wrap('deleteRole'),
  };
}
