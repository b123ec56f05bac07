/**
 * The open event streams of one app (docs/api.md, Events): Server-Sent
 * Events written on the raw reply. Each stream has a bounded queue: while
 * the socket will not take more (`write` answered false) frames wait in the
 * queue, and a client whose queue passes `maxQueuedBytes` is dropped — a
 * client that stops reading costs at most that, never unbounded memory.
 */
import type { ServerResponse } from 'node:http';
import type { DeskEvent, EventBus, Library } from '../library/index.js';

export interface EventStreamOptions {
  /** ms between heartbeat comments, which keep proxies and the idle timeout from closing a quiet stream. Default 15000. */
  heartbeatMs?: number;
  /** streams open at once; the next is refused with 503 too_many_subscribers. Default 64. */
  maxSubscribers?: number;
  /** bytes one stream may have waiting before its client is dropped as too slow. Default 1 MiB. */
  maxQueuedBytes?: number;
  /** the reconnection delay the stream asks of EventSource (`retry:`), ms. Default 3000. */
  retryMs?: number;
}

export type DropReason = 'slow' | 'closing' | 'client';

class Stream {
  private readonly queue: string[] = [];
  private queued = 0;
  private blocked = false;
  closed = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly maxQueued: number,
    private readonly onEnd: (s: Stream, reason: DropReason) => void,
  ) {
    res.on('close', () => this.end('client'));
    res.on('drain', () => this.flush());
  }

  /** bytes waiting: this queue plus what the response holds that the socket has not taken */
  get waiting(): number {
    return this.queued + (this.closed ? 0 : this.res.writableLength);
  }

  send(frame: string): void {
    if (this.closed) return;
    if (this.blocked) {
      this.queue.push(frame);
      this.queued += Buffer.byteLength(frame);
      if (this.queued > this.maxQueued) this.end('slow');
      return;
    }
    if (!this.res.write(frame)) this.blocked = true;
  }

  private flush(): void {
    this.blocked = false;
    // an index, not shift(): a full queue is thousands of small frames
    let i = 0;
    while (!this.closed && i < this.queue.length) {
      const frame = this.queue[i++]!;
      this.queued -= Buffer.byteLength(frame);
      if (!this.res.write(frame)) {
        this.blocked = true;
        break;
      }
    }
    this.queue.splice(0, i);
  }

  end(reason: DropReason): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.queued = 0;
    // a slow client's socket is full: end() would wait behind it, so it is cut
    if (reason === 'slow') this.res.destroy();
    else if (!this.res.writableEnded) this.res.end();
    this.onEnd(this, reason);
  }
}

/** One SSE frame. JSON never holds a raw newline, so `data` is one line. */
export function frame(event: { id: string; type: string; data: unknown }): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

export class EventStreams {
  private readonly streams = new Set<Stream>();
  private readonly bus: EventBus;
  /** the library's (openLibrary builds it), watching only while a stream is open; a stand-in library (tests) has none */
  private readonly watcher: Library['watcher'] | null;
  private closing = false;
  /** how many streams were dropped for not reading, since the start */
  dropped = 0;
  readonly heartbeatMs: number;
  readonly maxSubscribers: number;
  readonly maxQueuedBytes: number;
  readonly retryMs: number;

  constructor(
    library: Pick<Library, 'events'> & Partial<Pick<Library, 'watcher'>>,
    options: EventStreamOptions = {},
    private readonly log?: { warn(obj: object, msg: string): void },
  ) {
    this.bus = library.events;
    this.watcher = library.watcher ?? null;
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    this.maxSubscribers = options.maxSubscribers ?? 64;
    this.maxQueuedBytes = options.maxQueuedBytes ?? 1_048_576;
    this.retryMs = options.retryMs ?? 3_000;
  }

  /** For tests and /status: open streams and the bytes waiting across them. */
  stats(): { subscribers: number; queuedBytes: number; dropped: number; looks: number } {
    let queuedBytes = 0;
    for (const s of this.streams) queuedBytes += s.waiting;
    // how many looks at the disk the watcher has completed, since the library opened
    return { subscribers: this.streams.size, queuedBytes, dropped: this.dropped, looks: this.watcher?.completed ?? 0 };
  }

  /** Room for one more? False when at the cap or closing. */
  hasRoom(): boolean {
    return !this.closing && this.streams.size < this.maxSubscribers;
  }

  /**
   * Starts a stream on a response whose reply is hijacked. `lastEventId`
   * from a reconnecting EventSource: the missed events are replayed, or a
   * `resync` event tells the client to reload when they are gone.
   */
  open(res: ServerResponse, lastEventId: string | undefined): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      // nginx and friends buffer responses by default, which would hold events back
      'x-accel-buffering': 'no',
    });
    let heartbeat: NodeJS.Timeout | null = null;
    let unsubscribe: (() => void) | null = null;
    const stream = new Stream(res, this.maxQueuedBytes, (s, reason) => {
      if (heartbeat) clearInterval(heartbeat);
      unsubscribe?.();
      this.streams.delete(s);
      if (reason === 'slow') {
        this.dropped += 1;
        this.log?.warn({ reason }, 'an event stream client stopped reading; dropped');
      }
      if (this.streams.size === 0) this.watcher?.stop();
    });
    this.streams.add(stream);
    stream.send(`retry: ${this.retryMs}\n\n`);
    // replay and subscribe in one tick: no event can fall between them
    const missed = lastEventId === undefined ? [] : this.bus.since(lastEventId);
    if (missed === null) stream.send(frame({ id: this.bus.lastId, type: 'resync', data: { id: this.bus.lastId } }));
    else for (const e of missed) stream.send(frame(e));
    // `ready` carries the current id, so a client that reconnects before any event still resumes from here
    stream.send(frame({ id: this.bus.lastId, type: 'ready', data: { id: this.bus.lastId } }));
    if (stream.closed) return;
    unsubscribe = this.bus.subscribe((e: DeskEvent) => stream.send(frame(e)));
    heartbeat = setInterval(() => stream.send(': ping\n\n'), this.heartbeatMs).unref();
    this.watcher?.start();
  }

  /** Ends every stream (fastify's preClose): an open stream would keep server.close() waiting for ever. */
  closeAll(): void {
    this.closing = true;
    for (const s of [...this.streams]) s.end('closing');
    // the library disposes of it when it closes; a caller's library may serve another app
    this.watcher?.stop();
  }
}
