import { call, token } from './api.js';
import type { DeskEventMap, DeskEventType } from '../schema/events.js';

/**
 * The page's end of `GET /api/desk/events` (docs/api.md, Events): one
 * EventSource for the tab, its events handed to `on`. Events are hints; the
 * handlers read what they show again. EventSource cannot send headers, so
 * the token (when the service has one) goes as `?token=`.
 */
export type LiveEvent = { [K in DeskEventType]: { type: K; data: DeskEventMap[K] } }[DeskEventType] | { type: 'resync'; data: { id: string } };

const TYPES: LiveEvent['type'][] = ['template.changed', 'role.changed', 'proposal.created', 'proposal.decided', 'library.synced', 'launch.drafted', 'launch.decided', 'library.upgraded', 'resync'];
/** after a broken stream (EventSource gives up on a 503), try again this much later */
const REOPEN_MS = 5000;

/** The stream's contact with the service: `lost` when it drops, `back` when it is open again after that. */
export type LiveState = 'lost' | 'back';

/**
 * Started once the page has its first answer (main.ts, after GET /me), so
 * contact is never said lost before it was had. When the stream gives up
 * (EventSource cannot tell a 401 from a 503), one ordinary request asks:
 * a refused token brings the sign-in form, and the stream waits for the
 * new token rather than knocking again with the old one (each 401 counts
 * toward the address's lockout); a service that is down is tried again
 * REOPEN_MS later.
 */
export function startLive(on: (e: LiveEvent) => void, onState: (s: LiveState) => void = () => undefined): () => void {
  let source: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  let lost = false;
  let opened = false;

  const reopen = async () => {
    const before = token();
    try {
      // on a 401 this waits on the sign-in form until a token is taken
      await call('GET', '/me');
    } catch {
      // down, or an older service without /me: tried again in a while
    }
    if (stopped) return;
    // a new token: at once; otherwise the service refused the stream for another reason, so not in a tight loop
    if (token() !== before) open();
    else timer = setTimeout(open, REOPEN_MS);
  };

  const open = () => {
    const t = token();
    source = new EventSource(`/api/desk/events${t ? `?token=${encodeURIComponent(t)}` : ''}`);
    for (const type of TYPES) {
      source.addEventListener(type, (ev) => {
        try {
          on({ type, data: JSON.parse((ev as MessageEvent<string>).data) } as LiveEvent);
        } catch {
          // a frame the page cannot read is only a missed hint
        }
      });
    }
    source.addEventListener('open', () => {
      opened = true;
      if (!lost) return;
      lost = false;
      onState('back');
    });
    source.addEventListener('error', () => {
      if (stopped) return;
      // before the stream was ever open there was no contact to lose
      if (!lost && opened) {
        lost = true;
        onState('lost');
      }
      // CONNECTING: EventSource reconnects by itself (with Last-Event-ID). CLOSED: it gave up; ask why before trying again
      if (source?.readyState !== EventSource.CLOSED) return;
      source.close();
      void reopen();
    });
  };
  open();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    source?.close();
  };
}
