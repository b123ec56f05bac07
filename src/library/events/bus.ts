import { randomBytes } from 'node:crypto';
import type { DeskEvent, DeskEventMap, DeskEventType } from '../../schema/events.js';

export type { DeskEvent, DeskEventMap, DeskEventType } from '../../schema/events.js';

export type EventListener = (event: DeskEvent) => void;

export interface EventBusOptions {
  /** how many recent events are kept for Last-Event-ID resumes. Default 512. */
  ring?: number;
}

/**
 * The library's in-process event bus: what changed, as hints (the ETag stays
 * the guard). Each event gets an id `<epoch>.<seq>`: the epoch is fixed per
 * bus (start time and random bits), the sequence counts up from 1, so a
 * client's id from before a restart is told apart from today's. The last
 * `ring` events are kept so a reconnecting client can be sent what it missed.
 */
export class EventBus {
  /** base36 ms at creation plus random bits: two buses made in one millisecond still differ */
  readonly epoch = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  private seq = 0;
  private readonly ring: DeskEvent[] = [];
  private readonly size: number;
  private readonly listeners = new Set<EventListener>();

  constructor(options: EventBusOptions = {}) {
    this.size = Math.max(1, options.ring ?? 512);
  }

  /** Sends an event to every subscriber, synchronously; a listener that throws does not stop the others. */
  publish<K extends DeskEventType>(type: K, data: DeskEventMap[K]): DeskEvent {
    this.seq += 1;
    const event = { id: `${this.epoch}.${this.seq}`, type, data } as DeskEvent;
    this.ring.push(event);
    if (this.ring.length > this.size) this.ring.shift();
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch {
        // a broken subscriber must not cost the writer its answer
      }
    }
    return event;
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  /** The id of the last event, or `<epoch>.0` before any. */
  get lastId(): string {
    return `${this.epoch}.${this.seq}`;
  }

  /**
   * What came after `id`, for a Last-Event-ID resume: the events, or null
   * when the id is from another bus (a restart), in the future, unreadable,
   * or older than the ring keeps — the client must reload instead.
   */
  since(id: string): DeskEvent[] | null {
    const dot = id.lastIndexOf('.');
    if (dot < 0 || id.slice(0, dot) !== this.epoch) return null;
    const text = id.slice(dot + 1);
    if (!/^\d{1,15}$/.test(text)) return null;
    const seq = Number(text);
    if (seq > this.seq) return null;
    const oldest = this.seq - this.ring.length; // every seq after this one is in the ring
    if (seq < oldest) return null;
    return this.ring.slice(seq - oldest);
  }
}
