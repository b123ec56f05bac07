import { ApiError } from './api.js';
import { clear, h } from './dom.js';
import { stateInfo } from './states.js';

/** Small shared pieces: the state badge, the live status line, an inline confirmation. */
export function badge(state: string): HTMLElement {
  return h('span', { class: `badge state-${state}`, 'data-state': state }, stateInfo(state).label);
}

let saidAt = 0;
let keepOnce = false;

/** Announces a result in the page's one polite live region. */
export function say(text: string): void {
  const el = document.getElementById('status');
  if (!el) return;
  el.textContent = text;
  el.hidden = false;
  saidAt = Date.now();
  keepOnce = true;
}

/** On navigation: a message said just before it (Created, Deleted) stays for that one view; others go. */
export function unsay(): void {
  const el = document.getElementById('status');
  const keep = keepOnce && Date.now() - saidAt < 1500;
  keepOnce = false;
  if (el && !keep) {
    el.hidden = true;
    el.textContent = '';
  }
}

/** An inline confirmation in place of `confirm()`: keyboard-reachable, named, and it never blocks the page. */
export function confirmInline(where: HTMLElement, question: string, yes: string, onYes: () => Promise<void>): void {
  clear(where);
  const yesButton = h('button', { type: 'button', class: 'danger', onclick: async () => {
    yesButton.disabled = true;
    clear(where);
    await onYes();
  } }, yes);
  where.append(
    h(
      'div',
      { class: 'callout confirm', role: 'group', 'aria-label': 'Confirm' },
      h('p', {}, question),
      h('p', { class: 'actions' }, yesButton, h('button', { type: 'button', onclick: () => clear(where) }, 'Cancel')),
    ),
  );
  yesButton.focus();
}

/** An API failure as one line: the service's detail and its stable code. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) return `${e.detail} (${e.code})`;
  return e instanceof Error ? e.message : String(e);
}
