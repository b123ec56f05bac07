import { h } from './dom.js';

/**
 * Leaving a template or a role with unsaved text asks first, in the page (a
 * modal <dialog> whose "Stay" has the focus; never `confirm()`, which blocks
 * the page and cannot be styled or named). In-page links (the Library link,
 * the header, a list row) are held before the hash moves, so "stay" leaves
 * history as it was; browser back and forward and a typed hash are asked
 * about after (a hash change cannot be cancelled): the view's address is put
 * back at once and "leave" goes on to the address asked for. Closing the
 * tab is the browser's own `beforeunload` question (main.ts), the one thing
 * a page cannot ask itself.
 */

export interface LeaveGuard {
  /** whether the router may draw the view for the hash now in the address bar */
  allow(): boolean;
}

export interface LeaveOptions {
  /** true while there is text that leaving `hash` would lose */
  wouldLose(hash: string): boolean;
  /** the question; default the page's own dialog (leaveAsker) */
  ask?: (question: string) => Promise<boolean>;
}

const QUESTION = 'Leave this page? Your unsaved changes will be lost.';

/**
 * The page's modal question: true for Leave, false for Stay, Escape or a
 * click outside the buttons. One at a time per asker: a second ask while the
 * dialog is open waits on the same answer.
 */
export function leaveAsker(): (question: string) => Promise<boolean> {
  let asking: Promise<boolean> | null = null;
  return (question) => {
    asking ??= askOnce(question).finally(() => {
      asking = null;
    });
    return asking;
  };
}

function askOnce(question: string): Promise<boolean> {
  const back = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const stay = h('button', { type: 'button', class: 'primary' }, 'Stay');
  const leave = h('button', { type: 'button', class: 'danger' }, 'Leave');
  const dialog = h(
    'dialog',
    { class: 'leave-dialog', 'aria-labelledby': 'leave-question' },
    h('p', { id: 'leave-question' }, question),
    h('p', { class: 'actions' }, stay, leave),
  );
  document.body.append(dialog);
  const answer = new Promise<boolean>((resolve) => {
    const done = (yes: boolean) => {
      dialog.close();
      dialog.remove();
      if (!yes && back?.isConnected) back.focus();
      resolve(yes);
    };
    stay.addEventListener('click', () => done(false));
    leave.addEventListener('click', () => done(true));
    // Escape: the dialog's cancel, answered as Stay
    dialog.addEventListener('cancel', (ev) => {
      ev.preventDefault();
      done(false);
    });
  });
  dialog.showModal();
  stay.focus();
  return answer;
}

export function guardLeaving(o: LeaveOptions): LeaveGuard {
  const ask = o.ask ?? leaveAsker();
  /** the hash of the view on screen: where "stay" goes back to */
  let shown = location.hash;
  /** a hash already agreed to, so its hashchange does not ask again */
  let agreed: string | null = null;
  const go = (hash: string) => {
    agreed = hash;
    location.hash = hash;
  };

  document.addEventListener(
    'click',
    (ev) => {
      if (ev.defaultPrevented || ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey) return;
      const a = (ev.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!a || a.target || a.origin !== location.origin || a.pathname !== location.pathname || !a.hash.startsWith('#/')) return;
      if (a.hash === location.hash || !o.wouldLose(a.hash)) return;
      // held: the hash moves only once the question is answered Leave
      ev.preventDefault();
      const hash = a.hash;
      void ask(QUESTION).then((yes) => {
        if (yes) go(hash);
      });
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
      if (agreed === hash || !o.wouldLose(hash)) {
        agreed = null;
        shown = hash;
        return true;
      }
      // back, forward or a typed address: the view's address again, its view untouched, then the question
      history.pushState(history.state, '', shown);
      void ask(QUESTION).then((yes) => {
        if (yes) go(hash);
      });
      return false;
    },
  };
}
