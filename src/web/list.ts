import { call } from './api.js';
import { clear, h } from './dom.js';
import { DrawnRows, type Entry, entryKey, type RowHooks, rowMenus } from './list-rows.js';
import { CHIP_ORDER, stateInfo } from './states.js';
import type { RoleList, RoleSummary } from '../schema/roles.js';
import type { TemplateList, TemplateSummary } from '../schema/templates.js';
import { say } from './ui.js';
import { refreshUpgradeBanner, upgradeBanner } from './upgrade-banner.js';
import { can } from './me.js';

/**
 * The library: every template and role with its state as a badge and the
 * state's sentence for it (states.ts), copies edited outside the service
 * called out, ticket and invalid templates marked, a text filter (name,
 * purpose, state words, `outside`), chips by state, and a menu per row
 * (list-rows.ts). A redraw (`refresh`) changes only the rows that
 * changed, so the filter, a confirmation in progress and the focus stay.
 */

/** What the reader chose, kept for the tab across redraws and visits: main.ts keeps one and gives it to each list it draws. */
export interface ListChoice {
  /** the filter's text as typed */
  filter: string;
  /** the chip chosen ('' for all) */
  chip: string;
}

export interface LibraryView {
  readonly el: HTMLElement;
  /** Reads the library again and redraws the list in place (nothing when it is no longer on the page). */
  refresh(): Promise<void>;
}

export async function readLibrary(): Promise<[TemplateSummary[], RoleSummary[]]> {
  const [t, r] = await Promise.all([call<TemplateList>('GET', '/templates'), call<RoleList>('GET', '/roles')]);
  return [t.body.templates, r.body.roles];
}

export function libraryView(templates: TemplateSummary[], roles: RoleSummary[], choice: ListChoice): LibraryView {
  const box = h('input', {
    type: 'search',
    id: 'filter',
    value: choice.filter,
    placeholder: 'name, purpose, state or outside',
    'aria-label': 'Filter templates and roles',
  });
  const chips = h('div', { class: 'chips', role: 'group', 'aria-label': 'Show by state' });
  const tList = h('ul', { class: 'rows', 'aria-label': 'Templates' });
  const rList = h('ul', { class: 'rows', 'aria-label': 'Roles' });
  const tCount = h('span', { class: 'count' });
  const rCount = h('span', { class: 'count' });
  const tEmpty = h('p', { class: 'empty', hidden: true });
  const rEmpty = h('p', { class: 'empty', hidden: true });
  const tSaid = h('div', { class: 'list-notices' });
  const rSaid = h('div', { class: 'list-notices' });
  let all = { templates, roles };
  const drawn = new DrawnRows();

  const el = h(
    'div',
    { class: 'library' },
    h(
      'div',
      { class: 'library-bar' },
      h('label', { for: 'filter', class: 'visually-hidden' }, 'Filter'),
      box,
      can('editor') ? h('a', { href: '#/new', class: 'button' }, 'New template') : null,
    ),
    // while copies are behind the shipped templates: how many, and the way to the Upgrade view
    upgradeBanner(),
    chips,
    h('section', { 'aria-labelledby': 'h-templates' }, h('h2', { id: 'h-templates' }, 'Templates ', tCount), tSaid, tEmpty, tList),
    h('section', { 'aria-labelledby': 'h-roles' }, h('h2', { id: 'h-roles' }, 'Roles ', rCount), rSaid, rEmpty, rList),
  );

  const hooks: RowHooks = {
    refresh: () => refresh(),
    gone: (kind, text) => {
      say(text, kind === 'template' ? tSaid : rSaid);
    },
  };

  const showAll = () => {
    box.value = '';
    choice.chip = '';
    choice.filter = '';
    drawChips();
    apply();
    box.focus();
  };

  const apply = () => {
    const f = box.value.trim().toLowerCase();
    const hit = (li: HTMLElement) =>
      (choice.chip === '' || li.dataset.state === choice.chip) && (!f || drawn.searchOf(li).some((w) => w.includes(f)));
    const count = (list: HTMLElement, total: number, out: HTMLElement, empty: HTMLElement, what: string) => {
      let n = 0;
      for (const li of list.children as HTMLCollectionOf<HTMLElement>) {
        li.hidden = !hit(li);
        if (!li.hidden) n++;
      }
      out.textContent = `${n} of ${total}`;
      empty.hidden = n > 0 || total === 0;
      clear(empty);
      if (n === 0 && total > 0) {
        const why = [f ? `“${box.value.trim()}”` : '', choice.chip ? `the state ${stateInfo(choice.chip).label}` : ''].filter(Boolean).join(' and ');
        empty.append(`No ${what} matches ${why}. `, h('button', { type: 'button', class: 'link', onclick: showAll }, 'Show all'));
      }
    };
    count(tList, all.templates.length, tCount, tEmpty, 'template');
    count(rList, all.roles.length, rCount, rEmpty, 'role');
  };

  const drawChips = () => {
    const n = new Map<string, number>();
    for (const x of [...all.templates, ...all.roles]) n.set(x.state, (n.get(x.state) ?? 0) + 1);
    // a chosen state that no entry has any more is dropped rather than showing an empty list with no chip to undo it
    if (choice.chip && !n.has(choice.chip)) choice.chip = '';
    const focusedChip = document.activeElement instanceof HTMLElement && chips.contains(document.activeElement) ? document.activeElement.dataset.chip : undefined;
    clear(chips);
    const one = (value: string, label: string, count: number) => {
      const b = h('button', { type: 'button', class: `chip-filter${value ? ` state-${value}` : ''}`, 'data-chip': value, 'aria-pressed': String(choice.chip === value), onclick: () => {
        choice.chip = choice.chip === value ? '' : value;
        drawChips();
        apply();
      } }, label, ' ', h('span', { class: 'chip-count' }, String(count)));
      chips.append(b);
      if (focusedChip === value) b.focus();
    };
    one('', 'All', all.templates.length + all.roles.length);
    for (const s of CHIP_ORDER) if (n.has(s)) one(s, stateInfo(s).label, n.get(s)!);
  };

  /** Rows whose summary is unchanged stay as they are; changed ones are replaced, keeping their notices and focus. */
  const sync = (list: HTMLElement, entries: Entry[]) => {
    const old = new Map<string, HTMLElement>();
    for (const li of list.children as HTMLCollectionOf<HTMLElement>) old.set(li.dataset.key!, li);
    const kept = entries.map((e) => {
      const prev = old.get(entryKey(e));
      return prev && drawn.drawnFrom(prev, e) ? prev : null;
    });
    // the new and changed rows, made in one go (list-rows.ts)
    const made = drawn.rows(entries.filter((_, i) => !kept[i]));
    let at: Element | null = list.firstElementChild;
    let m = 0;
    entries.forEach((e, i) => {
      const key = entryKey(e);
      const prev = old.get(key);
      old.delete(key);
      const li = kept[i] ?? made[m++]!;
      if (li !== at) list.insertBefore(li, at);
      if (prev && prev !== li) {
        carryOver(prev, li);
        prev.remove();
      }
      at = li.nextElementSibling;
    });
    for (const gone of old.values()) gone.remove();
  };

  const update = (t: TemplateSummary[], r: RoleSummary[]) => {
    all = { templates: t, roles: r };
    sync(tList, t.map((x) => ({ kind: 'template', t: x })));
    sync(rList, r.map((x) => ({ kind: 'role', r: x })));
    drawChips();
    apply();
  };

  box.addEventListener('input', () => {
    choice.filter = box.value;
    apply();
  });
  rowMenus(tList, hooks, drawn);
  rowMenus(rList, hooks, drawn);
  const refresh = async () => {
    const [[t, r]] = await Promise.all([readLibrary(), refreshUpgradeBanner(el)]);
    if (el.isConnected) update(t, r);
  };
  update(templates, roles);
  return { el, refresh };
}

/** A row redrawn because its entry changed: what was said or asked in it, and the focus, move to the new row. */
function carryOver(prev: HTMLElement, next: HTMLElement): void {
  const active = document.activeElement;
  const had = active instanceof HTMLElement && prev.contains(active) ? active : null;
  const notices = prev.querySelector('.row-notices');
  const said = prev.querySelector('.said');
  // a new row has no notices area until something is said in it (list-rows.ts)
  if (notices?.firstChild) next.append(notices);
  if (said) next.querySelector('.row-main')?.after(said);
  if (!had) return;
  if (had.isConnected && next.contains(had)) {
    had.focus();
    return;
  }
  const kind = had.dataset.focus;
  (kind ? next.querySelector<HTMLElement>(`[data-focus="${kind}"]`) : next.querySelector<HTMLElement>('.name'))?.focus();
}
