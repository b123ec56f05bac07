import { h } from './dom.js';
import { rowLabel, stateInfo } from './states.js';
import type { RoleSummary } from '../schema/roles.js';
import type { TemplateSummary } from '../schema/templates.js';
import { badge } from './ui.js';

/**
 * The library: every template and role with its state as a badge and the
 * state's sentence for it (states.ts), copies edited outside the service called out,
 * ticket and invalid templates marked, and a filter over all of it.
 */
export function libraryView(templates: TemplateSummary[], roles: RoleSummary[], filter: string, onFilter: (f: string) => void): HTMLElement {
  const box = h('input', {
    type: 'search',
    id: 'filter',
    value: filter,
    placeholder: 'name, purpose or state',
    'aria-label': 'Filter templates and roles',
  });
  const tList = h('ul', { class: 'rows', 'aria-label': 'Templates' });
  const rList = h('ul', { class: 'rows', 'aria-label': 'Roles' });
  const tCount = h('span', { class: 'count' });
  const rCount = h('span', { class: 'count' });

  const apply = () => {
    const f = box.value.trim().toLowerCase();
    const hit = (...words: (string | null | undefined)[]) => !f || words.some((w) => w?.toLowerCase().includes(f));
    let tn = 0;
    for (const li of tList.children) {
      const show = hit(...(li as HTMLElement).dataset.search!.split('\u0000'));
      (li as HTMLElement).hidden = !show;
      if (show) tn++;
    }
    let rn = 0;
    for (const li of rList.children) {
      const show = hit(...(li as HTMLElement).dataset.search!.split('\u0000'));
      (li as HTMLElement).hidden = !show;
      if (show) rn++;
    }
    tCount.textContent = `${tn} of ${templates.length}`;
    rCount.textContent = `${rn} of ${roles.length}`;
  };
  box.addEventListener('input', () => {
    onFilter(box.value);
    apply();
  });

  for (const t of templates) tList.append(templateRow(t));
  for (const r of roles) rList.append(roleRow(r));
  apply();

  return h(
    'div',
    { class: 'library' },
    h(
      'div',
      { class: 'library-bar' },
      h('label', { for: 'filter', class: 'visually-hidden' }, 'Filter'),
      box,
      h('a', { href: '#/new', class: 'button' }, 'New template'),
    ),
    h('section', { 'aria-labelledby': 'h-templates' }, h('h2', { id: 'h-templates' }, 'Templates ', tCount), tList),
    h('section', { 'aria-labelledby': 'h-roles' }, h('h2', { id: 'h-roles' }, 'Roles ', rCount), rList),
  );
}

function templateRow(t: TemplateSummary): HTMLElement {
  const { errors, warnings } = t;
  const info = stateInfo(t.state);
  return h(
    'li',
    {
      class: `row state-${t.state}${t.valid ? '' : ' invalid'}`,
      'data-name': t.name,
      'data-state': t.state,
      'data-search': [t.name, t.purpose, info.label, t.state, t.ticket ? 'ticket' : '', t.valid ? '' : 'invalid'].join('\u0000'),
    },
    h(
      'div',
      { class: 'row-main' },
      h('a', { href: `#/templates/${t.name}`, class: 'name', 'aria-label': rowLabel('template', t.name, t.state) }, t.name),
      badge(t.state),
      t.ticket ? h('span', { class: 'tag ticket', title: 'closes its ticket; one previewed run per ticket' }, 'ticket') : null,
      t.writes ? h('span', { class: 'tag' }, 'writes') : null,
      t.valid ? null : h('span', { class: 'tag invalid' }, `invalid: ${errors} error${errors === 1 ? '' : 's'}`),
      warnings ? h('span', { class: 'tag warning' }, `${warnings} warning${warnings === 1 ? '' : 's'}`) : null,
      t.edited_outside ? h('span', { class: 'tag outside' }, 'edited outside the service') : null,
    ),
    h('p', { class: 'purpose' }, t.purpose || '(no purpose)'),
    info.sentence === info.label ? null : h('p', { class: 'sentence' }, info.sentence),
  );
}

function roleRow(r: RoleSummary): HTMLElement {
  const info = stateInfo(r.state);
  return h(
    'li',
    {
      class: `row state-${r.state}${r.valid ? '' : ' invalid'}`,
      'data-name': r.name,
      'data-state': r.state,
      'data-search': [r.name, info.label, r.state, 'role', r.valid ? '' : 'invalid'].join('\u0000'),
    },
    h(
      'div',
      { class: 'row-main' },
      h('a', { href: `#/roles/${r.name}`, class: 'name', 'aria-label': rowLabel('role', r.name, r.state) }, r.name),
      badge(r.state),
      r.has_kit ? h('span', { class: 'tag' }, 'kit') : null,
      r.valid ? null : h('span', { class: 'tag invalid' }, 'invalid'),
      r.edited_outside ? h('span', { class: 'tag outside' }, 'edited outside the service') : null,
    ),
    info.sentence === info.label ? null : h('p', { class: 'sentence' }, info.sentence),
  );
}
