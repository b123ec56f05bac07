import { h } from './dom.js';

/** the event the open form sends its token with, to every request waiting on it */
const TOKEN_EVENT = 'desk-token';

/**
 * The sign-in form, shown when the service answers 401. One form at a time:
 * every request that meets a 401 while it is open waits on the same answer,
 * which the open form itself hands out (the page holds no other record of it).
 */
export function askToken(refused: boolean): Promise<string> {
  const open = document.querySelector<HTMLFormElement>('form.token-form');
  if (open) return new Promise<string>((resolve) => open.addEventListener(TOKEN_EVENT, (ev) => resolve((ev as CustomEvent<string>).detail), { once: true }));
  return new Promise<string>((resolve) => {
    const input = h('input', {
      type: 'password',
      id: 'token-input',
      autocomplete: 'off',
      required: true,
      'aria-describedby': 'token-help',
    });
    // the page cannot tell a personal token from the desk's shared one, so it names both and claims neither
    const form = h(
      'form',
      { class: 'token-form' },
      h('h2', {}, 'Sign in with your token'),
      h(
        'p',
        { id: 'token-help' },
        refused ? h('strong', { class: 'token-refused' }, 'That token was refused. ') : null,
        'Your token is a personal one from whoever runs the desk, or the desk’s shared token. It is kept for this tab only, until you sign out or close it.',
      ),
      h('label', { for: 'token-input' }, 'Your token'),
      input,
      h('button', { type: 'submit' }, 'Sign in'),
    );
    const backdrop = h('div', { class: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-label': 'Sign in' }, form);
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const value = input.value.trim();
      if (!value) return;
      backdrop.remove();
      form.dispatchEvent(new CustomEvent(TOKEN_EVENT, { detail: value }));
      resolve(value);
    });
    document.body.append(backdrop);
    input.focus();
  });
}
