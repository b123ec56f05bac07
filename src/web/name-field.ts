import { h } from './dom.js';
import { NAME_PATTERN, nameProblem } from './names.js';

/**
 * A template name field for the page's forms (new template, duplicate): the
 * service's rule as its pattern, and a plain sentence beside it when the name
 * is wrong, instead of the browser's bubble or the service's schema jargon.
 * The forms using it are `novalidate`; `check()` is their validation.
 */
export interface NameField {
  el: HTMLElement;
  input: HTMLInputElement;
  /** the trimmed name when it is good; else null, with the sentence shown and the focus on the field */
  check(): string | null;
}

export function nameField(id: string, label: string, value = ''): NameField {
  const msgId = `${id}-msg`;
  const hintId = `${id}-hint`;
  const input = h('input', {
    id,
    value,
    required: true,
    pattern: NAME_PATTERN,
    maxlength: 64,
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': `${hintId} ${msgId}`,
  });
  const msg = h('span', { class: 'field-error', id: msgId, 'aria-live': 'polite' });
  let shown = false;
  const judge = (): string | null => {
    const name = input.value.trim();
    const problem = nameProblem(name);
    msg.textContent = problem ?? '';
    if (problem) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
    return problem ? null : name;
  };
  // once a sentence is shown it follows the typing, so it goes as soon as the name is right
  input.addEventListener('input', () => {
    if (shown) judge();
  });
  return {
    input,
    el: h(
      'p',
      { class: 'name-field' },
      h('label', { for: id }, label),
      input,
      h('span', { class: 'hint', id: hintId }, 'lowercase letters, digits and dashes'),
      msg,
    ),
    check() {
      shown = true;
      const name = judge();
      if (name === null) input.focus();
      return name;
    },
  };
}
