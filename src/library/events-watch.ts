import type { EventBus } from './events.js';
import type { Library } from './types.js';

export interface WatchOptions {
  /** ms between looks. Default 2000. */
  intervalMs?: number;
  /** told when a look fails (the folder vanished, say); the next look tries again. Default: nothing. */
  onError?: (e: unknown) => void;
  /** told after each look that completed. Default: nothing. */
  onLook?: () => void;
}

type Lists = Pick<Library, 'listTemplates' | 'listRoles'>;
type Seen = Map<string, string>;

/**
 * Finds changes made without the service (hand edits, another process) by
 * listing the library on an interval and publishing template.changed /
 * role.changed for each name whose state or ETag differs from the last look.
 * The lists are the library's own, kept cheap by its stat-keyed caches.
 * Events the writes published are folded into what was seen, so a save is
 * not announced twice. The first look only learns; returns stop().
 */
export function watchLibrary(library: Lists, bus: EventBus, options: WatchOptions = {}): () => void {
  const interval = options.intervalMs ?? 2000;
  const seen: Record<'template' | 'role', Seen | null> = { template: null, role: null };
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  const unsubscribe = bus.subscribe((e) => {
    if (e.type !== 'template.changed' && e.type !== 'role.changed') return;
    const map = seen[e.type === 'template.changed' ? 'template' : 'role'];
    if (!map) return;
    if (e.data.state === null) map.delete(e.data.name);
    else map.set(e.data.name, key(e.data));
  });

  const compare = (kind: 'template' | 'role', entries: { name: string; state: string; etag: string }[]) => {
    const now: Seen = new Map(entries.map((e) => [e.name, key(e)]));
    const before = seen[kind];
    seen[kind] = now;
    if (!before) return;
    const type = kind === 'template' ? 'template.changed' : 'role.changed';
    for (const e of entries) if (before.get(e.name) !== now.get(e.name)) bus.publish(type, { name: e.name, state: e.state as never, etag: e.etag });
    for (const name of before.keys()) if (!now.has(name)) bus.publish(type, { name, state: null, etag: null });
  };

  const tick = async () => {
    try {
      const [templates, roles] = await Promise.all([library.listTemplates(), library.listRoles()]);
      if (stopped) return;
      compare('template', templates);
      compare('role', roles);
      options.onLook?.();
    } catch (e) {
      options.onError?.(e);
    }
    // the next look is scheduled after this one ends: looks never overlap however slow the disk
    if (!stopped) timer = setTimeout(tick, interval).unref();
  };
  void tick();

  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    unsubscribe();
  };
}

const key = (e: { state: string | null; etag: string | null }): string => `${e.state}\0${e.etag}`;
