import { call, enc } from './api.js';
import { add, clear, h } from './dom.js';
import { duplicateForm } from './duplicate.js';
import { canReset, rowLabel, stateInfo } from './states.js';
import type { RoleSummary } from '../schema/roles.js';
import type { TemplateSummary } from '../schema/templates.js';
import { badge, confirmInline, errorText, say } from './ui.js';

/**
 * One library row: the name (its link named for assistive technology with
 * the state, and "edited outside" when so), the badge and tags, and a menu
 * of what the row's state allows — open, reset, duplicate as a new
 * template, delete (custom only). Confirmations, the duplicate form and
 * results appear inside the row, next to the menu that asked.
 */
export type Entry = { kind: 'template'; t: TemplateSummary } | { kind: 'role'; r: RoleSummary };

export interface RowHooks {
  /** read the library again and redraw what changed, in place */
  refresh(): Promise<void>;
  /** a result for a row that is gone (deleted): said at the top of its list */
  gone(kind: Entry['kind'], text: string): void;
}

/** What a row is drawn from: when it is unchanged a redraw keeps the row (and the focus in it). */
export function entryKey(e: Entry): string {
  return `${e.kind}:${e.kind === 'template' ? e.t.name : e.r.name}`;
}

/** each row's summary as JSON: a redraw keeps the rows whose summary is the same */
export const drawnFrom = new WeakMap<HTMLElement, string>();

export function row(e: Entry, hooks: RowHooks): HTMLElement {
  const x = e.kind === 'template' ? e.t : e.r;
  const info = stateInfo(x.state);
  const href = `#/${e.kind === 'template' ? 'templates' : 'roles'}/${x.name}`;
  const words =
    e.kind === 'template'
      ? [x.name, e.t.purpose, e.t.ticket ? 'ticket' : '', e.t.writes ? 'writes' : '']
      : [x.name, 'role', e.r.has_kit ? 'kit' : ''];
  const li = h('li', {
    class: `row state-${x.state}${x.valid ? '' : ' invalid'}`,
    'data-key': entryKey(e),
    'data-name': x.name,
    'data-state': x.state,
    'data-outside': x.edited_outside ? 'true' : null,
    'data-search': [...words, info.label, x.state, x.valid ? '' : 'invalid', x.edited_outside ? 'edited outside the service' : ''].join('\u0000'),
  });
  drawnFrom.set(li, JSON.stringify(x));
  const notices = h('div', { class: 'row-notices' });
  const main = h(
    'div',
    { class: 'row-main' },
    h('a', { href, class: 'name', 'aria-label': rowLabel(e.kind, x.name, x.state, x.edited_outside) }, x.name),
    badge(x.state),
    tags(e),
    menu(e, li, notices, hooks),
  );
  add(
    li,
    main,
    e.kind === 'template' ? h('p', { class: 'purpose' }, e.t.purpose || '(no purpose)') : null,
    info.sentence === info.label ? null : h('p', { class: 'sentence' }, info.sentence),
    notices,
  );
  return li;
}

function tags(e: Entry): (HTMLElement | null)[] {
  const outside = (e.kind === 'template' ? e.t : e.r).edited_outside ? h('span', { class: 'tag outside' }, 'edited outside the service') : null;
  if (e.kind === 'role') {
    return [e.r.has_kit ? h('span', { class: 'tag' }, 'kit') : null, e.r.valid ? null : h('span', { class: 'tag invalid' }, 'invalid'), outside];
  }
  const { errors, warnings } = e.t;
  return [
    e.t.ticket ? h('span', { class: 'tag ticket', title: 'closes its ticket; one previewed run per ticket' }, 'ticket') : null,
    e.t.writes ? h('span', { class: 'tag' }, 'writes') : null,
    e.t.valid ? null : h('span', { class: 'tag invalid' }, `invalid: ${errors} error${errors === 1 ? '' : 's'}`),
    warnings ? h('span', { class: 'tag warning' }, `${warnings} warning${warnings === 1 ? '' : 's'}`) : null,
    outside,
  ];
}

/** A disclosure (button + list of buttons), not an ARIA menu: plain Tab order, Escape closes it. */
function menu(e: Entry, li: HTMLElement, notices: HTMLElement, hooks: RowHooks): HTMLElement {
  const x = e.kind === 'template' ? e.t : e.r;
  const id = `menu-${e.kind}-${x.name}`;
  const toggle = h('button', {
    type: 'button',
    class: 'row-menu-toggle',
    'aria-expanded': 'false',
    'aria-controls': id,
    'aria-label': `Actions for ${e.kind} ${x.name}`,
    'data-focus': 'toggle',
  }, 'Actions', h('span', { 'aria-hidden': 'true' }, ' ▾'));
  const items = h('ul', { class: 'row-menu', id, hidden: true });
  const wrap = h('div', { class: 'row-menu-wrap' }, toggle, items);
  const close = (refocus: boolean) => {
    items.hidden = true;
    toggle.setAttribute('aria-expanded', 'false');
    if (refocus) toggle.focus();
  };
  const item = (label: string, run: () => void, danger = false) =>
    h('li', {}, h('button', { type: 'button', class: danger ? 'danger' : null, onclick: () => {
      close(true);
      run();
    } }, label));
  toggle.addEventListener('click', () => {
    // the items are made on first opening: a library of a thousand rows draws a thousand buttons, not eight thousand
    if (!items.firstChild) fill();
    const open = items.hidden;
    items.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    if (open) items.querySelector<HTMLElement>('a, button')?.focus();
  });
  wrap.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && !items.hidden) {
      ev.preventDefault();
      close(true);
    }
  });
  wrap.addEventListener('focusout', (ev) => {
    if (!wrap.contains(ev.relatedTarget as Node | null)) close(false);
  });

  const path = e.kind === 'template' ? `/templates/${enc(x.name)}` : `/roles/${enc(x.name)}`;
  const shipped = e.kind === 'template' ? e.t.shipped : e.r.shipped;
  const fill = () => add(
    items,
    h('li', {}, h('a', { href: `#/${e.kind === 'template' ? 'templates' : 'roles'}/${x.name}` }, 'Open')),
    canReset(x.state, shipped)
      ? item(e.kind === 'template' ? 'Reset to shipped' : 'Reset role to built-in', () =>
          confirmInline(
            notices,
            e.kind === 'template'
              ? `Reset ${x.name}? Your copy is removed and the shipped template loads.`
              : `Reset role ${x.name}? Its folder is removed and the built-in role loads.`,
            'Yes, reset',
            () =>
              act(li, hooks, `Not reset`, async () => {
                // the ETag read now guards the reset: a change made since the list was drawn is not thrown away unseen
                const { etag } = await call('GET', path);
                if (e.kind === 'template') await call('POST', '/settings/template-reset', { body: { name: x.name }, ifMatch: etag });
                else await call('POST', '/role', { body: { name: x.name, reset: true }, ifMatch: etag });
                return `Reset ${x.name}.`;
              }),
          ),
        )
      : null,
    e.kind === 'template' ? item('Duplicate as new template', () => duplicateForm(notices, x.name)) : null,
    x.state === 'custom'
      ? item(
          'Delete',
          () =>
            confirmInline(notices, `Delete ${e.kind === 'role' ? 'role ' : ''}${x.name}? ${e.kind === 'template' ? 'The file is' : 'Its folder is'} removed from the library.`, 'Yes, delete', async () => {
              try {
                const { etag } = await call('GET', path);
                await call('DELETE', path, { ifMatch: etag });
                await hooks.refresh();
                hooks.gone(e.kind, `Deleted ${x.name}.`);
              } catch (err) {
                failed(document.querySelector<HTMLElement>(`.library li[data-key="${CSS.escape(li.dataset.key!)}"]`) ?? li, `Not deleted: ${errorText(err)}`);
              }
            }),
          true,
        )
      : null,
  );
  return wrap;
}

/**
 * Runs a row's write, reads the library again (the row is redrawn with its
 * new state), and says the result in the row — the new one, found by key.
 */
async function act(li: HTMLElement, hooks: RowHooks, what: string, write: () => Promise<string>): Promise<void> {
  // the row may have been redrawn since it was drawn (a live update): the one on the page now has the same key
  const now = () => document.querySelector<HTMLElement>(`.library li[data-key="${CSS.escape(li.dataset.key!)}"]`);
  try {
    const text = await write();
    await hooks.refresh();
    const at = now();
    if (at) say(`${text} It reads ${stateInfo(at.dataset.state ?? '').label}.`, at.querySelector('.row-main')!);
  } catch (err) {
    failed(now() ?? li, `${what}: ${errorText(err)}`);
  }
}

function failed(li: HTMLElement, text: string): void {
  const notices = li.querySelector<HTMLElement>('.row-notices');
  if (!notices) return;
  clear(notices);
  const p = h('p', { class: 'callout error', role: 'alert', tabindex: '-1' }, text);
  notices.append(p);
  p.focus();
}
