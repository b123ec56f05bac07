/**
 * Leaving a template with unsaved text asks first. In-page links (the
 * Library link, the header, a list row) are asked about before the hash
 * moves, so "stay" leaves history as it was; browser back and forward and a
 * typed hash are asked about after (a hash change cannot be cancelled), and
 * "stay" puts the template's address back. Closing the tab is the browser's
 * own `beforeunload` question (main.ts).
 */

export interface LeaveGuard {
  /** whether the router may draw the view for the hash now in the address bar */
  allow(): boolean;
}

export interface LeaveOptions {
  /** true while there is text that leaving `hash` would lose */
  wouldLose(hash: string): boolean;
  /** the question; default the browser's confirm dialog */
  ask?: (question: string) => boolean;
}

const QUESTION = 'Leave this template? Your unsaved changes will be lost.';

export function guardLeaving(o: LeaveOptions): LeaveGuard {
  const ask = o.ask ?? ((q: string) => window.confirm(q));
  /** the hash of the view on screen: where "stay" goes back to */
  let shown = location.hash;
  /** a hash already agreed to at the click, so its hashchange does not ask again */
  let agreed: string | null = null;

  document.addEventListener(
    'click',
    (ev) => {
      if (ev.defaultPrevented || ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey) return;
      const a = (ev.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!a || a.target || a.origin !== location.origin || a.pathname !== location.pathname || !a.hash.startsWith('#/')) return;
      if (a.hash === location.hash || !o.wouldLose(a.hash)) return;
      if (ask(QUESTION)) agreed = a.hash;
      else ev.preventDefault();
    },
    true, // before the browser follows the link
  );

  return {
    allow(): boolean {
      const hash = location.hash;
      // `#main` (the skip link) is an anchor on this page, not a view: stay, with the view's address
      if (hash !== '' && !hash.startsWith('#/')) {
        history.replaceState(history.state, '', shown || '#/');
        return false;
      }
      if (agreed === hash || !o.wouldLose(hash) || ask(QUESTION)) {
        agreed = null;
        shown = hash;
        return true;
      }
      // back, forward or a typed address, refused: the template's address again, its view untouched
      history.pushState(history.state, '', shown);
      return false;
    },
  };
}
