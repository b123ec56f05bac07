import { ApiError, call, enc } from './api.js';
import { clear, h } from './dom.js';
import type { SyncStatus } from '../schema/sync.js';
import { errorText } from './ui.js';
import { can } from './me.js';

/**
 * The header's sync indicator (docs/api.md, Sync): shown only when the
 * service has a remote (GET /sync answers `409 no_remote` otherwise). It says
 * whether this desk is level with the team's library, what waits to be
 * pushed or merged, which templates diverged (each a link to its page), the
 * last error, and offers Sync now. Read again on the library's events and
 * every POLL_MS, so a round on the interval shows without a reload.
 */

const POLL_MS = 20_000;

function summary(s: SyncStatus): string {
  if (s.last_error) return 'team library: not synced';
  const waiting = [s.ahead ? `${s.ahead} to push` : '', s.behind ? `${s.behind} to merge` : ''].filter(Boolean).join(', ');
  return waiting ? `team library: ${waiting}` : 'team library: in sync';
}

export interface SyncIndicator {
  /** read the status again (a beat after a burst of calls) */
  refresh(): void;
}

export function syncIndicator(el: HTMLElement): SyncIndicator {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let off = false;
  const text = h('span', { class: 'sync-text', role: 'status' });
  const button = h('button', { type: 'button', class: 'sync-now', onclick: () => void now() }, 'Sync now');
  const details = h('span', { class: 'sync-details' });
  el.append(text, details);

  function render(s: SyncStatus): void {
    if (s.remote === null) {
      // no remote: nothing to show, and nothing to ask again
      off = true;
      el.hidden = true;
      return;
    }
    el.hidden = false;
    // syncing is an editor's (me.ts): decided when drawn, since the first status may be read before GET /me answers
    if (can('editor') && !button.isConnected) el.append(button);
    else if (!can('editor')) button.remove();
    el.classList.toggle('warn', s.last_error !== null || s.diverged.length + s.diverged_roles.length > 0);
    text.textContent = summary(s);
    el.title = `remote: ${s.remote}${s.last_sync ? `; last synced ${new Date(s.last_sync).toLocaleString()}` : '; not synced yet'}`;
    clear(details);
    if (s.diverged.length) {
      details.append(
        ' · diverged: ',
        ...s.diverged.flatMap((n, i) => [i ? ', ' : '', h('a', { href: `#/templates/${enc(n)}`, class: 'sync-diverged' }, n)]),
      );
    }
    if (s.diverged_roles.length) {
      details.append(' · diverged roles: ', ...s.diverged_roles.flatMap((n, i) => [i ? ', ' : '', h('a', { href: `#/roles/${enc(n)}` }, n)]));
    }
    if (s.last_error) details.append(h('span', { class: 'sync-error' }, ` · ${s.last_error}`));
  }

  async function load(method: 'GET' | 'POST'): Promise<void> {
    try {
      render((await call<SyncStatus>(method, '/sync', method === 'POST' ? { body: {} } : {})).body);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'no_remote') {
        // no remote: nothing to show, and nothing to ask again
        off = true;
        el.hidden = true;
        return;
      }
      if (el.hidden) return;
      // a round asked for and refused: say so, never "syncing…" left on screen
      if (method === 'POST') text.textContent = 'team library: not synced';
      details.replaceChildren(h('span', { class: 'sync-error' }, ` · ${errorText(e)}`));
    }
  }

  async function now(): Promise<void> {
    button.disabled = true;
    text.textContent = 'team library: syncing…';
    try {
      await load('POST');
    } finally {
      button.disabled = false;
    }
  }

  const poll = () => {
    if (off) return;
    void load('GET').finally(() => {
      if (!off) timer = setTimeout(poll, POLL_MS);
    });
  };
  poll();
  let beat: ReturnType<typeof setTimeout> | null = null;
  return {
    refresh() {
      if (off) return;
      if (beat) clearTimeout(beat);
      beat = setTimeout(() => {
        if (timer) clearTimeout(timer);
        poll();
      }, 300);
    },
  };
}
