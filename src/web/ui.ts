import { ApiError } from './api.js';
import { clear, h } from './dom.js';
import { stateInfo } from './states.js';

/** Small shared pieces: the state badge, result messages, an inline confirmation. */
export function badge(state: string): HTMLElement {
  return h('span', { class: `badge state-${state}`, 'data-state': state }, stateInfo(state).label);
}

/**
 * A view's head read again elsewhere (a 412 says the entry changed): the
 * badge and the state's sentence follow the service, nothing else is
 * redrawn, so the text being edited and the ETag it was read with stay.
 */
export function showState(head: Element, state: string): void {
  head.querySelector('h2 .badge')?.replaceWith(badge(state));
  const info = stateInfo(state);
  const sentence = head.querySelector<HTMLElement>('.sentence[data-state]');
  if (sentence) {
    sentence.dataset.state = state;
    sentence.textContent = info.sentence;
    sentence.hidden = info.sentence === info.label;
  }
}

/** What a message is: each has its own colour, and only an error interrupts (role=alert). */
export type SayKind = 'success' | 'info' | 'warning' | 'error';

/**
 * Says the result of an action. `near` is the control or bar that caused it:
 * the message is shown right after it, where the eyes are (the line above
 * the view scrolls away on a long page), one message at a time: a new one
 * replaces the last. The page's one polite live region still announces it,
 * visually hidden then; an error is an alert of its own instead. If the
 * action took the focus with it (a redrawn button), the focus goes to the
 * message, never to `<body>`. Without `near` (a result that navigates:
 * Created, Deleted), the line above the view shows it.
 */
export function say(text: string, near?: Element, kind: SayKind = 'success'): HTMLElement | null {
  const el = document.getElementById('status');
  // a refusal for the person's role (api.ts) stays in the status line while its view says the error by the control
  const refusal = el?.dataset.refusal === 'true' && !el.hidden && kind === 'error' && near !== undefined;
  if (el && !refusal) {
    delete el.dataset.refusal;
    // an error near its control is that control's alert; the polite region would say it twice
    el.textContent = kind === 'error' && near ? '' : text;
    el.hidden = el.textContent === '';
    el.dataset.kind = kind;
    el.classList.toggle('visually-hidden', near !== undefined);
    // the status line itself remembers a message said for the next view (unsay)
    if (near === undefined) el.dataset.keepFrom = String(Date.now());
    else delete el.dataset.keepFrom;
  }
  if (!near?.parentElement) return null;
  let said = near.nextElementSibling;
  if (!(said instanceof HTMLElement) || !said.classList.contains('said')) {
    said = h('p', { class: 'said', tabindex: '-1' });
    near.after(said);
  }
  const msg = said as HTMLElement;
  msg.textContent = text;
  msg.dataset.kind = kind;
  if (kind === 'error') msg.setAttribute('role', 'alert');
  else msg.removeAttribute('role');
  if (focusLost()) msg.focus();
  return msg;
}

/** Whether the focus fell to the document (its element was removed or disabled). */
export function focusLost(): boolean {
  const a = document.activeElement;
  return a === null || a === document.body || !a.isConnected;
}

/**
 * Takes a message away. With `near`, the one said by it (the text it was
 * about changed, or a conflict now says more); without, on navigation: a
 * message said just before it (Created, Deleted) stays for that one view,
 * others go.
 */
export function unsay(near?: Element): void {
  const el = document.getElementById('status');
  if (near) {
    const said = near.nextElementSibling;
    if (said?.classList.contains('said')) {
      if (said === document.activeElement) (near.querySelector('button:not(:disabled)') as HTMLElement | null)?.focus();
      said.remove();
    }
    // called on every key: write only when something is said, so a key changes nothing outside the editor
    if (el?.classList.contains('visually-hidden') && !el.hidden) {
      el.hidden = true;
      el.textContent = '';
    }
    return;
  }
  const keepFrom = el?.dataset.keepFrom;
  const keep = keepFrom !== undefined && Date.now() - Number(keepFrom) < 1500;
  if (el) delete el.dataset.keepFrom;
  if (el && !keep) {
    delete el.dataset.refusal;
    el.hidden = true;
    el.textContent = '';
    el.classList.remove('visually-hidden');
  }
}

/**
 * An inline confirmation in place of `confirm()`: keyboard-reachable, named,
 * and it never blocks the page. The focus starts on Cancel (a stray Enter
 * must not destroy anything) and goes back to the control that asked when
 * the question is cancelled.
 */
export function confirmInline(where: HTMLElement, question: string, yes: string, onYes: () => Promise<void>): void {
  const asker = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
  clear(where);
  const yesButton = h('button', { type: 'button', class: 'danger', onclick: async () => {
    yesButton.disabled = true;
    clear(where);
    await onYes();
  } }, yes);
  const cancel = h('button', { type: 'button', onclick: () => {
    clear(where);
    if (asker?.isConnected) asker.focus();
  } }, 'Cancel');
  where.append(
    h(
      'div',
      { class: 'callout confirm', role: 'group', 'aria-label': 'Confirm' },
      h('p', {}, question),
      h('p', { class: 'actions' }, yesButton, cancel),
    ),
  );
  cancel.focus();
}

/** An API failure as one line: the service's detail and its stable code. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) return `${e.detail} (${e.code})`;
  return e instanceof Error ? e.message : String(e);
}
