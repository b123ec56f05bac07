import { ApiError, call, enc } from './api.js';
import { clear, h } from './dom.js';
import { nameField } from './name-field.js';
import { renameSource } from './names.js';
import type { TemplateAnswer } from '../schema/templates.js';
import { errorText, say } from './ui.js';

/**
 * "Duplicate as new template", wherever a template is shown (a list row's
 * menu, the template's own page): asks for a name in place, then writes the
 * template's saved text under it with its header renamed. Create only
 * (`If-None-Match: *`): a name that exists, or appears meanwhile in another
 * window, is refused with 412 and never overwritten.
 */
export function duplicateForm(where: HTMLElement, from: string): void {
  const asker = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
  const id = `dup-${from}`;
  const field = nameField(id, `Name of the copy of ${from}`, freeName(from));
  const out = h('div', { class: 'notices' });
  const create = h('button', { type: 'submit', class: 'primary' }, 'Create copy');
  const cancel = h('button', {
    type: 'button',
    onclick: () => {
      clear(where);
      if (asker?.isConnected) asker.focus();
    },
  }, 'Cancel');
  const form = h(
    'form',
    { class: 'callout duplicate', 'aria-label': `Duplicate ${from} as a new template`, novalidate: true },
    field.el,
    h('p', { class: 'actions' }, create, cancel),
    out,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clear(out);
    const name = field.check();
    if (name === null) return;
    create.disabled = true;
    try {
      const { body } = await call<TemplateAnswer>('GET', `/templates/${enc(from)}`);
      await call('PUT', `/templates/${enc(name)}`, { body: { source: renameSource(body.source, name) }, ifNoneMatch: '*' });
      say(`Created ${name}, a copy of ${from}.`);
      location.hash = `#/templates/${name}`;
    } catch (e) {
      create.disabled = false;
      if (e instanceof ApiError && e.status === 412) {
        out.append(h('p', { class: 'callout error', role: 'alert' }, `A template named ${name} already exists. Pick another name, or `, h('a', { href: `#/templates/${name}` }, `open ${name}`), '.'));
      } else {
        out.append(h('p', { class: 'callout error', role: 'alert' }, `Not created: ${errorText(e)}`));
        if (e instanceof ApiError) for (const p of e.problems) out.append(h('p', { class: `problem ${p.severity}` }, h('code', {}, p.code), ' ', p.message));
      }
      field.input.focus();
    }
  });
  clear(where);
  where.append(form);
  field.input.focus();
  field.input.select();
}

/** A first suggestion: `<name>-copy`, cut to the 64-character limit. */
function freeName(from: string): string {
  return `${from.slice(0, 59)}-copy`;
}
