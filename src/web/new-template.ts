import { ApiError, call, enc } from './api.js';
import { clear, h } from './dom.js';
import { skeleton } from './format.js';
import { nameField } from './name-field.js';
import { errorText, say } from './ui.js';
import { can } from './me.js';

/** `#/new`: a new custom template — name and purpose, then a skeleton that is valid as written, saved with PUT. */
export function newTemplateView(): HTMLElement {
  // creating is an editor's (me.ts): a viewer or conductor who follows a link here is told, with no form to fill in vain
  if (!can('editor')) {
    return h(
      'div',
      { class: 'new-form' },
      h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Library'), ' / new template'),
      h('h2', {}, 'New template'),
      h('p', { class: 'callout' }, 'Creating a template needs the editor role.'),
    );
  }
  const name = nameField('new-name', 'Name');
  const purpose = h('input', { id: 'new-purpose', required: true, autocomplete: 'off' });
  const out = h('div', { class: 'notices' });
  const create = h('button', { type: 'submit', class: 'primary' }, 'Create');
  const form = h(
    'form',
    { class: 'new-form', 'aria-labelledby': 'h-new', novalidate: true },
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Library'), ' / new template'),
    h('h2', { id: 'h-new' }, 'New template'),
    h('p', {}, 'It starts as a small valid graph (write, a human gate, save) that you edit from there.'),
    name.el,
    h('p', {}, h('label', { for: 'new-purpose' }, 'Purpose'), purpose),
    h('p', {}, create),
    out,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clear(out);
    const n = name.check();
    if (n === null) return;
    create.disabled = true;
    try {
      // create only: a name that exists, or is made meanwhile (another window), is 412, never overwritten
      await call('PUT', `/templates/${enc(n)}`, { body: { source: skeleton(n, purpose.value) }, ifNoneMatch: '*' });
      say(`Created ${n}.`);
      location.hash = `#/templates/${n}`;
    } catch (e) {
      create.disabled = false;
      if (e instanceof ApiError && e.status === 412) {
        out.append(h('p', { class: 'callout error', role: 'alert' }, `A template named ${n} already exists.`, ' ', h('a', { href: `#/templates/${n}` }, 'Open it')));
      } else {
        out.append(h('p', { class: 'callout error', role: 'alert' }, `Not created: ${errorText(e)}`));
        if (e instanceof ApiError) for (const p of e.problems) out.append(h('p', { class: `problem ${p.severity}` }, h('code', {}, p.code), ' ', p.message));
      }
      name.input.focus();
    }
  });
  queueMicrotask(() => name.input.focus());
  return form;
}
