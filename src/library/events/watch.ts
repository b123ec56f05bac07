import type { EntryChanged } from '../../schema/events.js';
import type { LibraryReads } from '../entries.js';
import type { EventBus } from './bus.js';
import { FolderWatches, type Kind } from './folders.js';
import { KeyedQueue } from '../queue.js';

export interface WatchOptions {
  /** ms between full relists, the safety net for what the folder watches miss. Default 60000. */
  relistMs?: number;
  /** ms a burst of file events is gathered (from its last event) before its names are looked at. Default 75. */
  settleMs?: number;
  /** watch the folders (fs.watch); false leaves the relist alone, as a test of the safety net. Default true. */
  watch?: boolean;
  /** told when a look or a watch fails (the folder vanished, say); the next one tries again. Default: nothing. */
  onError?: (e: unknown) => void;
  /** told after each look that completed: a relist, or the names a burst touched. Default: nothing. */
  onLook?: (what: 'relist' | 'names') => void;
}

/** How long after start() the first relist waits, at most. */
const FIRST_LOOK_MS = 300;
/** A burst that never pauses (a script rewriting a file in a loop) is still looked at this often. */
const MAX_BURST_MS = 1_000;
/** More names of one kind in a burst (a checkout, an unpacked archive) are looked at by one list instead, which its caches keep cheap. */
const MAX_NAMES = 32;

/** What the watcher reads: the core's reads, and when a sync round runs (sync/contract.ts, SyncFiles.onRound). */
type Reads = Pick<LibraryReads, 'listTemplates' | 'listRoles' | 'getTemplate' | 'getRole'> & {
  readonly root: string | null;
  syncFiles?: { onRound(listener: (running: boolean) => void): () => void } | undefined;
};

const TYPE = { template: 'template.changed', role: 'role.changed' } as const;
const KINDS: readonly Kind[] = ['template', 'role'];

/**
 * Finds changes made without the service (hand edits, another process) and
 * publishes template.changed / role.changed for each name whose state or
 * ETag differs from what was last announced (docs/api.md, Events).
 *
 * While started (a stream is open): inotify watches on the library's
 * folders (folders.ts) name the files that changed; a burst is gathered
 * until it pauses for `settleMs`, then only the names it touched are read
 * again. A full relist every `relistMs` is the safety net: Node never
 * reports an inotify overflow, and a watch misses what happened in a folder
 * before it was opened. Every watch is closed by stop().
 *
 * What was last announced is one map per kind, name → state and ETag. The
 * writes' own events are folded into it all along (the subscription lives
 * from construction to dispose()), so a save through the service is never
 * announced twice: when its file events are looked at, what loads is what
 * was announced. A name the bus announced while a look was reading is left
 * to the look after, which its file events bring: what the look read of it
 * may be from before the write.
 *
 * A sync round writes its names and tells them by one `library.synced`
 * event (docs/api.md, Events): while it runs, file events and relists wait,
 * and once it ends the next relist learns what loads without announcing it,
 * so a round of thousands of names is never told again name by name.
 *
 * The map outlives stop(): the first relist after the next start() tells
 * what changed while nobody watched, once per name, as it loads then (never
 * a state in between, nothing for a name that is back as it was). The very
 * first relist only learns.
 */
export class LibraryWatcher {
  private readonly seen: Record<Kind, Map<string, string>> = { template: new Map(), role: new Map() };
  /** whether the kind's map holds a relist yet: until it does, nothing is announced */
  private readonly learned: Record<Kind, boolean> = { template: false, role: false };
  /** names the bus announced since the current look began */
  private readonly heard: Record<Kind, Set<string>> = { template: new Set(), role: new Set() };
  /** names file events touched, waiting for the burst to settle */
  private readonly pending: Record<Kind, Set<string>> = { template: new Set(), role: new Set() };
  /** kinds to relist whole at the next look */
  private readonly whole = new Set<Kind>();
  /** ms between full relists while started */
  readonly relistMs: number;
  private readonly settleMs: number;
  private folders: FolderWatches | null = null;
  private relistTimer: NodeJS.Timeout | null = null;
  private settleTimer: NodeJS.Timeout | null = null;
  private burstStart = 0;
  /** the looks run one after another, never side by side (the serializer's one key): a relist's older read never overwrites a newer one */
  private readonly looks = new KeyedQueue();
  /** the generation whose look is queued and not yet begun; -1: none */
  private queuedFor = -1;
  private relistDue = false;
  private running = false;
  /** how many looks at the disk have completed, since construction (the events stream's stats) */
  completed = 0;
  /** bumped by every start and stop, so a look begun before a stop publishes nothing */
  private generation = 0;
  /** a sync round is writing: its files are told by its own event */
  private syncing = false;
  private readonly unsubscribe: () => void;
  private readonly unsubscribeRound: () => void;

  constructor(
    private readonly library: Reads,
    private readonly bus: EventBus,
    private readonly options: WatchOptions = {},
  ) {
    this.relistMs = options.relistMs ?? 60_000;
    this.settleMs = options.settleMs ?? 75;
    this.unsubscribe = bus.subscribe((e) => {
      if (e.type === 'library.upgraded') {
        // library.upgraded told what the upgrade wrote
        this.relearn();
        return;
      }
      if (e.type !== 'template.changed' && e.type !== 'role.changed') return;
      const kind: Kind = e.type === 'template.changed' ? 'template' : 'role';
      this.heard[kind].add(e.data.name);
      this.remember(kind, e.data);
    });
    this.unsubscribeRound =
      library.syncFiles?.onRound((running) => {
        this.syncing = running;
        // library.synced told what the round wrote
        if (!running) this.relearn();
      }) ?? (() => {});
  }

  /**
   * After many files changed at once under an event of their own (a sync
   * round, an upgrade): relist now and learn the new states without
   * announcing each name, since that event already told clients.
   */
  private relearn(): void {
    for (const k of KINDS) this.learned[k] = false;
    if (!this.running) return;
    // one relist chain: the one waiting gives way to this one
    if (this.relistTimer) clearTimeout(this.relistTimer);
    this.relistNow(this.generation);
  }

  /** open folder watches, for tests */
  get watches(): number {
    return this.folders?.count ?? 0;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const gen = ++this.generation;
    if (this.options.watch !== false && this.library.root !== null) {
      this.folders = new FolderWatches(this.library.root, { file: (kind, name) => this.touched(kind, name), folder: (kind) => this.touchedAll(kind) }, (e) =>
        this.options.onError?.(e),
      );
      this.folders.open();
    }
    // A client that has just opened a stream (the settings page loading) lists the library
    // itself in the same moment; relisting at once made the two lists share the event loop and
    // doubled the page's first load (bench/page.ts). The first relist waits a beat instead.
    this.relistTimer = setTimeout(() => this.relistNow(gen), Math.min(this.relistMs, FIRST_LOOK_MS)).unref();
  }

  stop(): void {
    this.running = false;
    this.generation++;
    if (this.relistTimer) clearTimeout(this.relistTimer);
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.relistTimer = this.settleTimer = null;
    this.folders?.close();
    this.folders = null;
    // what was waiting is for the first relist of the next start to find
    for (const k of KINDS) this.pending[k].clear();
    this.whole.clear();
    this.relistDue = false;
  }

  dispose(): void {
    this.stop();
    this.unsubscribe();
    this.unsubscribeRound();
  }

  private touched(kind: Kind, name: string): void {
    const p = this.pending[kind];
    if (!this.whole.has(kind)) p.add(name);
    if (p.size > MAX_NAMES) {
      this.whole.add(kind);
      p.clear();
    }
    this.settleSoon();
  }

  private touchedAll(kind: Kind): void {
    this.whole.add(kind);
    this.pending[kind].clear();
    this.settleSoon();
  }

  /** (Re)arms the burst's timer: it fires once events pause for settleMs, or MAX_BURST_MS after the burst's first. */
  private settleSoon(): void {
    const now = Date.now();
    if (this.settleTimer) clearTimeout(this.settleTimer);
    else this.burstStart = now;
    const wait = Math.max(0, Math.min(this.settleMs, this.burstStart + MAX_BURST_MS - now));
    const gen = this.generation;
    this.settleTimer = setTimeout(() => {
      this.settleTimer = null;
      if (gen === this.generation) this.queueLook(gen);
    }, wait).unref();
  }

  private relistNow(gen: number): void {
    this.relistTimer = null;
    if (gen !== this.generation) return;
    this.relistDue = true;
    this.queueLook(gen);
  }

  /** One look queued behind the one under way; what it reads is decided when it begins, so events meanwhile join it. */
  private queueLook(gen: number): void {
    if (this.queuedFor === gen) return;
    this.queuedFor = gen;
    void this.looks.run('look', () => {
      if (this.queuedFor === gen) this.queuedFor = -1;
      return this.look(gen);
    });
  }

  private async look(gen: number): Promise<void> {
    // what gathered during a round is taken by the relist its end asks for
    if (gen !== this.generation || this.syncing) return;
    const relist = this.relistDue;
    this.relistDue = false;
    const whole = new Set<Kind>(relist ? KINDS : this.whole);
    this.whole.clear();
    const names: Record<Kind, string[]> = { template: [...this.pending.template], role: [...this.pending.role] };
    for (const k of KINDS) {
      this.pending[k].clear();
      this.heard[k].clear();
      // nothing announced before a kind's first relist: that relist learns what loads
      if (!this.learned[k] && names[k].length) whole.add(k);
    }
    if (relist) this.folders?.reconcile();
    try {
      for (const k of KINDS) {
        if (whole.has(k)) await this.relistKind(k, gen);
        else for (const name of names[k]) await this.lookAt(k, name, gen);
        if (gen !== this.generation) return;
      }
      this.completed += 1;
      this.options.onLook?.(whole.size ? 'relist' : 'names');
    } catch (e) {
      this.options.onError?.(e);
    } finally {
      // the next relist counts from the end of this one: relists never pile up however slow the disk
      if (relist && gen === this.generation) this.relistTimer = setTimeout(() => this.relistNow(gen), this.relistMs).unref();
    }
  }

  private async relistKind(kind: Kind, gen: number): Promise<void> {
    const entries = kind === 'template' ? await this.library.listTemplates() : await this.library.listRoles();
    if (gen !== this.generation) return;
    const announce = this.learned[kind];
    const heard = this.heard[kind];
    const listed = new Set<string>();
    for (const e of entries) {
      listed.add(e.name);
      if (!heard.has(e.name)) this.settle(kind, { name: e.name, state: e.state, etag: e.etag }, announce);
    }
    for (const name of [...this.seen[kind].keys()]) {
      if (!listed.has(name) && !heard.has(name)) this.settle(kind, { name, state: null, etag: null }, announce);
    }
    this.learned[kind] = true;
  }

  private async lookAt(kind: Kind, name: string, gen: number): Promise<void> {
    let now: EntryChanged;
    try {
      const e = kind === 'template' ? await this.library.getTemplate(name) : await this.library.getRole(name);
      now = { name, state: e?.state ?? null, etag: e?.etag ?? null };
    } catch (err) {
      // one name that cannot be read (a link refused, say) hides nothing else; the relist tries it again
      this.options.onError?.(err);
      return;
    }
    if (gen !== this.generation || this.heard[kind].has(name)) return;
    this.settle(kind, now, true);
  }

  /** Records what loads for a name; announces it when it differs from what was last announced and `announce` says so. */
  private settle(kind: Kind, now: EntryChanged, announce: boolean): void {
    if (!this.remember(kind, now)) return;
    if (announce) this.bus.publish(TYPE[kind], now);
  }

  /** True when this changes what is remembered for the name. */
  private remember(kind: Kind, e: EntryChanged): boolean {
    const map = this.seen[kind];
    const k = e.state === null ? undefined : `${e.state}\0${e.etag}`;
    if (map.get(e.name) === k) return false;
    if (k === undefined) map.delete(e.name);
    else map.set(e.name, k);
    return true;
  }
}
