import { call, enc } from './api.js';
import { add, clear, fromMarkup, h } from './dom.js';
import { html, type Markup } from './markup.js';
import { duplicateForm } from './duplicate.js';
import { canReset, rowLabel, stateInfo } from './states.js';
import type { RoleSummary } from '../schema/roles.js';
import type { TemplateSummary } from '../schema/templates.js';
import { confirmInline, errorText, say } from './ui.js';
import { can } from './me.js';

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

/** The rows one list view drew (list.ts makes one per view): the entry each shows, and its filter words. */
export class DrawnRows {
  /** the entry each drawn row shows: for its menu, its filter words, and a redraw's comparison */
  private readonly entries = new WeakMap<Element, Entry>();
  /** the words of each row the filter has looked at (searchOf) */
  private readonly words = new WeakMap<Element, readonly string[]>();

  /**
   * The rows of `entries`, made in one parse of their markup (dom.ts `html`):
   * a library of a thousand templates is drawn in tens of milliseconds. Their
   * menus work once `rowMenus` has been called on the list they go into.
   */
  rows(entries: readonly Entry[]): HTMLElement[] {
    const made = fromMarkup(...entries.map(rowMarkup)) as HTMLElement[];
    made.forEach((li, i) => {
      this.entries.set(li, entries[i]!);
    });
    return made;
  }

  entryOf(li: Element): Entry | undefined {
    return this.entries.get(li);
  }

  /** Whether a row drawn earlier shows exactly this entry, so a redraw can keep it (and the focus in it). */
  drawnFrom(li: Element, e: Entry): boolean {
    const was = this.entries.get(li);
    return was !== undefined && JSON.stringify(summaryOf(was)) === JSON.stringify(summaryOf(e));
  }

  /**
   * The words the library's text filter matches a row by (list.ts): name,
   * purpose, tags, state, `outside`. Made when the filter first asks, not
   * with the row: most loads never filter.
   */
  searchOf(li: Element): readonly string[] {
    let words = this.words.get(li);
    const e = this.entries.get(li);
    if (!words && e) {
      words = searchWords(e);
      this.words.set(li, words);
    }
    return words ?? [];
  }
}

function summaryOf(e: Entry): TemplateSummary | RoleSummary {
  return e.kind === 'template' ? e.t : e.r;
}

function searchWords(e: Entry): string[] {
  const x = e.kind === 'template' ? e.t : e.r;
  const words =
    e.kind === 'template'
      ? [x.name, e.t.purpose, e.t.ticket ? 'ticket' : '', e.t.writes ? 'writes' : '']
      : [x.name, 'role', e.r.has_kit ? 'kit' : ''];
  return [...words, stateInfo(x.state).label, x.state, x.valid ? '' : 'invalid', x.edited_outside ? 'edited outside the service' : ''].filter((w): w is string => !!w).map((w) => w.toLowerCase());
}

/**
 * A row's markup, kept small (a thousand are parsed at once): its menu's
 * items and its notices area are made when first needed.
 */
function rowMarkup(e: Entry): Markup {
  const x = e.kind === 'template' ? e.t : e.r;
  const info = stateInfo(x.state);
  const href = `#/${e.kind === 'template' ? 'templates' : 'roles'}/${x.name}`;
  return html`<li class="row state-${x.state}${x.valid ? '' : ' invalid'}" data-key="${entryKey(e)}" data-name="${x.name}" data-state="${x.state}"${x.edited_outside ? html` data-outside="true"` : ''}><div class="row-main"><a href="${href}" class="name" aria-label="${rowLabel(e.kind, x.name, x.state, x.edited_outside)}">${x.name}</a>${badgeMarkup(x.state)}${tags(e)}<div class="row-menu-wrap"><button type="button" class="row-menu-toggle" aria-expanded="false" aria-label="Actions for ${e.kind} ${x.name}" data-focus="toggle">Actions</button></div></div>${
    e.kind === 'template' ? html`<p class="purpose">${e.t.purpose || '(no purpose)'}</p>` : ''
  }${info.sentence === info.label ? '' : html`<p class="sentence">${info.sentence}</p>`}</li>`;
}

/** ui.ts `badge` as markup: the same element. */
function badgeMarkup(state: string): Markup {
  return html`<span class="badge state-${state}" data-state="${state}">${stateInfo(state).label}</span>`;
}

function tags(e: Entry): Markup[] {
  const tag = (cls: string, text: string, title?: string) => html`<span class="tag${cls ? ` ${cls}` : ''}"${title ? html` title="${title}"` : ''}>${text}</span>`;
  const outside = (e.kind === 'template' ? e.t : e.r).edited_outside ? tag('outside', 'edited outside the service') : null;
  const out: (Markup | null)[] =
    e.kind === 'role'
      ? [e.r.has_kit ? tag('', 'kit') : null, e.r.valid ? null : tag('invalid', 'invalid'), outside]
      : [
          e.t.ticket ? tag('ticket', 'ticket', 'closes its ticket; one previewed run per ticket') : null,
          e.t.writes ? tag('', 'writes') : null,
          e.t.valid ? null : tag('invalid', `invalid: ${e.t.errors} error${e.t.errors === 1 ? '' : 's'}`),
          e.t.warnings ? tag('warning', `${e.t.warnings} warning${e.t.warnings === 1 ? '' : 's'}`) : null,
          outside,
        ];
  return out.filter((m): m is Markup => m !== null);
}

/**
 * The rows' menus, for every row `list` holds now or later: one set of
 * listeners on the list, not three per row. Each menu is a disclosure
 * (button + list of buttons), not an ARIA menu: plain Tab order, Escape
 * closes it. Its items are made on first opening, from the row's entry.
 */
export function rowMenus(list: HTMLElement, hooks: RowHooks, drawn: DrawnRows): void {
  const parts = (from: EventTarget | null) => {
    const wrap = from instanceof Element ? from.closest<HTMLElement>('.row-menu-wrap') : null;
    const li = wrap?.closest<HTMLElement>('li.row');
    if (!wrap || !li || !list.contains(li)) return null;
    return { wrap, li, toggle: wrap.querySelector<HTMLElement>('.row-menu-toggle')!, items: wrap.querySelector<HTMLElement>('.row-menu') };
  };
  const close = (m: { li: HTMLElement; toggle: HTMLElement; items: HTMLElement }, refocus: boolean) => {
    m.items.hidden = true;
    m.toggle.setAttribute('aria-expanded', 'false');
    m.li.classList.remove('menu-open');
    if (refocus) m.toggle.focus();
  };
  list.addEventListener('click', (ev) => {
    const m = parts(ev.target);
    if (!m || !(ev.target instanceof Element) || !ev.target.closest('.row-menu-toggle')) return;
    const e = drawn.entryOf(m.li);
    if (!e) return;
    let items = m.items;
    if (!items) {
      const id = `menu-${e.kind}-${e.kind === 'template' ? e.t.name : e.r.name}`;
      const made = h('ul', { class: 'row-menu', id, hidden: true });
      items = made;
      m.wrap.append(made);
      m.toggle.setAttribute('aria-controls', id);
      fill(e, m.li, made, hooks, (refocus) => close({ ...m, items: made }, refocus));
    }
    const open = items.hidden !== false;
    items.hidden = !open;
    m.toggle.setAttribute('aria-expanded', String(open));
    // the row stops containing its paint while the menu hangs below it (style.css)
    m.li.classList.toggle('menu-open', open);
    if (open) items.querySelector<HTMLElement>('a, button')?.focus();
  });
  list.addEventListener('keydown', (ev) => {
    const m = parts(ev.target);
    if (m?.items && ev.key === 'Escape' && !m.items.hidden) {
      ev.preventDefault();
      close({ ...m, items: m.items }, true);
    }
  });
  list.addEventListener('focusout', (ev) => {
    const m = parts(ev.target);
    if (m?.items && !m.wrap.contains(ev.relatedTarget as Node | null)) close({ ...m, items: m.items }, false);
  });
}

/** A row's notices area (confirmations, the duplicate form, results), made when first needed. */
export function rowNotices(li: HTMLElement): HTMLElement {
  const there = li.querySelector<HTMLElement>(':scope > .row-notices');
  if (there) return there;
  const made = h('div', { class: 'row-notices' });
  li.append(made);
  return made;
}

/** A row's menu items: what its state allows — open, reset, duplicate as a new template, delete (custom only). */
function fill(e: Entry, li: HTMLElement, items: HTMLElement, hooks: RowHooks, close: (refocus: boolean) => void): void {
  const x = e.kind === 'template' ? e.t : e.r;
  const notices = rowNotices(li);
  const item = (label: string, run: () => void, danger = false) =>
    h('li', {}, h('button', { type: 'button', class: danger ? 'danger' : null, onclick: () => {
      close(true);
      run();
    } }, label));
  const path = e.kind === 'template' ? `/templates/${enc(x.name)}` : `/roles/${enc(x.name)}`;
  const shipped = e.kind === 'template' ? e.t.shipped : e.r.shipped;
  add(
    items,
    h('li', {}, h('a', { href: `#/${e.kind === 'template' ? 'templates' : 'roles'}/${x.name}` }, 'Open')),
    // what only an editor may do is left out for the others (me.ts)
    can('editor') && canReset(x.state, shipped)
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
    e.kind === 'template' && can('editor') ? item('Duplicate as new template', () => duplicateForm(notices, x.name)) : null,
    x.state === 'custom' && can('editor')
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
  const notices = rowNotices(li);
  clear(notices);
  const p = h('p', { class: 'callout error', role: 'alert', tabindex: '-1' }, text);
  notices.append(p);
  p.focus();
}
