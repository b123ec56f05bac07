import type { EventBus } from './bus.js';
import type { Library } from '../types.js';

export interface WatchOptions {
  /** ms between looks. Default 2000. */
  intervalMs?: number;
  /** told when a look fails (the folder vanished, say); the next look tries again. Default: nothing. */
  onError?: (e: unknown) => void;
  /** told after each look that completed. Default: nothing. */
  onLook?: () => void;
}

/** How long after start() the first look waits, at most. */
const FIRST_LOOK_MS = 300;

type Lists = Pick<Library, 'listTemplates' | 'listRoles'>;
type Kind = 'template' | 'role';

/**
 * Finds changes made without the service (hand edits, another process) by
 * listing the library on an interval, while started, and publishing
 * template.changed / role.changed for each name whose state or ETag differs
 * from what was last seen. The lists are the library's own, kept cheap by
 * its stat-keyed caches.
 *
 * What was seen outlives stop(): the first look after the next start()
 * reports what changed in between, so a client that reconnects hears of a
 * hand edit made while nobody watched. Events the writes publish are folded
 * into it all along (the subscription lives from construction to dispose()),
 * so a save through the service is never announced twice. The very first
 * look only learns.
 */
export class LibraryWatcher {
  private readonly seen: Record<Kind, Map<string, string> | null> = { template: null, role: null };
  private readonly interval: number;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  /** bumped by every start and stop, so a look begun before a stop publishes nothing */
  private generation = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly library: Lists,
    private readonly bus: EventBus,
    private readonly options: WatchOptions = {},
  ) {
    this.interval = options.intervalMs ?? 2000;
    this.unsubscribe = bus.subscribe((e) => {
      if (e.type !== 'template.changed' && e.type !== 'role.changed') return;
      const map = this.seen[e.type === 'template.changed' ? 'template' : 'role'];
      if (!map) return;
      if (e.data.state === null) map.delete(e.data.name);
      else map.set(e.data.name, key(e.data));
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const gen = ++this.generation;
    // A client that has just opened a stream (the settings page loading) lists the library
    // itself in the same moment; looking at once made the two lists share the event loop and
    // doubled the page's first load (bench/page.ts). The first look waits a beat instead.
    this.timer = setTimeout(() => void this.tick(gen), Math.min(this.interval, FIRST_LOOK_MS)).unref();
  }

  stop(): void {
    this.running = false;
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  dispose(): void {
    this.stop();
    this.unsubscribe();
  }

  private async tick(gen: number): Promise<void> {
    try {
      const [templates, roles] = await Promise.all([this.library.listTemplates(), this.library.listRoles()]);
      if (gen !== this.generation) return;
      this.compare('template', templates);
      this.compare('role', roles);
      this.options.onLook?.();
    } catch (e) {
      this.options.onError?.(e);
    }
    // the next look is scheduled after this one ends: looks never overlap however slow the disk
    if (gen === this.generation) this.timer = setTimeout(() => void this.tick(gen), this.interval).unref();
  }

  private compare(kind: Kind, entries: { name: string; state: string; etag: string }[]): void {
    const now = new Map<string, string>(entries.map((e) => [e.name, key(e)]));
    const before = this.seen[kind];
    this.seen[kind] = now;
    if (!before) return;
    const type = kind === 'template' ? 'template.changed' : 'role.changed';
    for (const e of entries) if (before.get(e.name) !== now.get(e.name)) this.bus.publish(type, { name: e.name, state: e.state as never, etag: e.etag });
    for (const name of before.keys()) if (!now.has(name)) this.bus.publish(type, { name, state: null, etag: null });
  }
}

const key = (e: { state: string | null; etag: string | null }): string => `${e.state}\0${e.etag}`;
