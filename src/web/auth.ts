import { h } from './dom.js';

/**
 * The token form, shown when the service answers 401. One form at a time:
 * every request that meets a 401 while it is open waits on the same answer.
 */
let pending: Promise<string> | null = null;

export function askToken(refused: boolean): Promise<string> {
  pending ??= new Promise<string>((resolve) => {
    const input = h('input', {
      type: 'password',
      id: 'token-input',
      autocomplete: 'off',
      required: true,
      'aria-describedby': 'token-help',
    });
    const form = h(
      'form',
      { class: 'token-form' },
      h('h2', {}, 'This service needs its access token'),
      h(
        'p',
        { id: 'token-help' },
        refused
          ? 'The token was refused. Enter the value of DESK_TOKEN the service was started with.'
          : 'Enter the value of DESK_TOKEN the service was started with. It is kept for this tab only.',
      ),
      h('label', { for: 'token-input' }, 'Token'),
      input,
      h('button', { type: 'submit' }, 'Use token'),
    );
    const backdrop = h('div', { class: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-label': 'Access token' }, form);
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const value = input.value.trim();
      if (!value) return;
      backdrop.remove();
      pending = null;
      resolve(value);
    });
    document.body.append(backdrop);
    input.focus();
  });
  return pending;
}
