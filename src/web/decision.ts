/**
 * What the Proposals and Launches views share around a decision: the submit
 * that holds its button while the call runs, and Dismiss, which asks first —
 * with a note for the conductor and the focus on Cancel, since a dismissal
 * cannot be undone.
 */
import { h } from './dom.js';
import { say } from './ui.js';

/** A decision's submit: the button held while `run` goes; its sentence said and `done` on success, `failed` on a refusal. */
export function onDecision(form: HTMLFormElement, button: HTMLButtonElement, run: () => Promise<string>, done: () => void, failed: (e: unknown) => void): void {
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    button.disabled = true;
    try {
      say(await run());
      done();
    } catch (e) {
      button.disabled = false;
      failed(e);
    }
  });
}

export interface DismissOptions {
  /** the Dismiss button's name for assistive tech, e.g. `Dismiss quick-fix` */
  label: string;
  /** the question asked, e.g. `Dismiss the proposal quick-fix?` */
  question: string;
  /** the class of the form holding Dismiss, and of the question */
  formClass: string;
  askClass: string;
  /** the id of the note's field */
  noteId: string;
}

export interface DismissAsk {
  /** the form holding the Dismiss button, for the actions row */
  form: HTMLFormElement;
  /** the question, hidden until Dismiss: placed after the actions */
  ask: HTMLElement;
  /** submitted by "Yes, dismiss" (hand it to onDecision) */
  askForm: HTMLFormElement;
  yes: HTMLButtonElement;
  /** the conductor's note as typed, trimmed; '' for none */
  note: () => string;
}

export function dismissAsk(o: DismissOptions): DismissAsk {
  const button = h('button', { type: 'button' }, 'Dismiss');
  const noteField = h('input', { id: o.noteId, autocomplete: 'off', maxlength: 2000 });
  const form = h('form', { class: o.formClass, 'aria-label': o.label }, button);
  const ask = h('div', { class: `callout confirm ${o.askClass}`, role: 'group', 'aria-label': o.label + '?', hidden: true });
  const cancel = h('button', { type: 'button', onclick: () => {
    ask.hidden = true;
    button.focus();
  } }, 'Cancel');
  const yes = h('button', { type: 'submit', class: 'danger' }, 'Yes, dismiss');
  const askForm = h(
    'form',
    {},
    h('p', {}, `${o.question} The conductor is told, with your note; this cannot be undone.`),
    h('p', {}, h('label', { for: o.noteId }, 'Note for the conductor '), noteField),
    h('p', { class: 'actions' }, cancel, yes),
  );
  ask.append(askForm);
  ask.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') cancel.click();
  });
  button.addEventListener('click', () => {
    ask.hidden = false;
    cancel.focus();
  });
  return { form, ask, askForm, yes, note: () => noteField.value.trim() };
}
