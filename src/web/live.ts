import { token } from './api.js';
import type { DeskEventMap, DeskEventType } from '../schema/events.js';

/**
 * The page's end of `GET /api/desk/events` (docs/api.md, Events): one
 * EventSource for the tab, its events handed to `on`. Events are hints; the
 * handlers read what they show again. EventSource cannot send headers, so
 * the token (when the service has one) goes as `?token=`.
 */
export type LiveEvent = { [K in DeskEventType]: { type: K; data: DeskEventMap[K] } }[DeskEventType] | { type: 'resync'; data: { id: string } };

const TYPES: LiveEvent['type'][] = ['template.changed', 'role.changed', 'proposal.created', 'proposal.decided', 'library.synced', 'launch.drafted', 'launch.decided', 'library.upgraded', 'resync'];
/** after a refused or broken stream (EventSource gives up on a 401 or 503), try again this much later */
const REOPEN_MS = 5000;

/** The stream's contact with the service: `lost` when it drops, `back` when it is open again after that. */
export type LiveState = 'lost' | 'back';

export function startLive(on: (e: LiveEvent) => void, onState: (s: LiveState) => void = () => undefined): () => void {
  let source: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  let lost = false;

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
      if (!lost) return;
      lost = false;
      onState('back');
    });
    source.addEventListener('error', () => {
      if (stopped) return;
      if (!lost) {
        lost = true;
        onState('lost');
      }
      // CONNECTING: EventSource reconnects by itself (with Last-Event-ID). CLOSED: it gave up; so do we, for a while
      if (source?.readyState !== EventSource.CLOSED) return;
      timer = setTimeout(open, REOPEN_MS);
    });
  };
  open();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    source?.close();
  };
}
