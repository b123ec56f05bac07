import { ApiError, call, enc } from './api.js';
import { add, clear, h } from './dom.js';
import { historySection } from './history-view.js';
import { canReset, stateInfo } from './states.js';
import type { Kit, RoleAnswer } from '../schema/roles.js';
import { TOOLS } from '../template/catalog/tools.js';
import { badge, confirmInline, errorText, focusLost, say, showState } from './ui.js';


/**
 * One role: role.md and the kit's tools, saved with POST /api/desk/role, with
 * its own reset. Save is disabled while the text and kit are as loaded: a
 * save of an unchanged built-in role would only freeze a same-as-shipped copy.
 */
export async function rolePage(name: string): Promise<HTMLElement> {
  const el = h('section', { class: 'role-page' });
  let etag: string | null = null;
  let role: RoleAnswer;

  const load = async () => {
    const ans = await call<RoleAnswer>('GET', `/roles/${enc(name)}`);
    role = ans.body;
    etag = ans.etag;
    render();
  };

  const render = () => {
    clear(el);
    const notices = h('div', { class: 'notices' });
    const md = h('textarea', { id: 'role-md', class: 'source prose', spellcheck: 'true', 'aria-label': `role.md of ${name}` });
    md.value = role.role_md;
    const hasKit = h('input', { type: 'checkbox', id: 'has-kit', checked: role.kit !== null });
    // the catalogue's tools, then any the kit lists that it does not: nothing in kit.json is dropped silently
    const tools = [...new Set<string>([...Object.keys(TOOLS), ...(role.kit?.tools ?? [])])];
    const boxes = tools.map((t) => {
      const id = `tool-${t.replace(/\W/g, '-')}`;
      const cb = h('input', { type: 'checkbox', id, value: t, checked: role.kit?.tools.includes(t) ?? false, disabled: role.kit === null });
      return { cb, row: h('li', {}, cb, ' ', h('label', { for: id }, h('code', {}, t))) };
    });
    hasKit.addEventListener('change', () => {
      for (const b of boxes) b.cb.disabled = !hasKit.checked;
    });
    const kit = (): Kit | null => (hasKit.checked ? { tools: boxes.filter((b) => b.cb.checked).map((b) => b.cb.value) } : null);
    // the kit's tools as a set: the boxes list them in the page's order, kit.json in its own
    const asLoaded = JSON.stringify([role.role_md, role.kit ? [...role.kit.tools].sort() : null]);
    const saveButton = h('button', { type: 'button', class: 'primary', 'aria-describedby': 'role-save-hint', onclick: () => void save() }, 'Save role');
    const saveHint = h('span', { class: 'hint', id: 'role-save-hint' });
    const changed = () => {
      const k = kit();
      const same = JSON.stringify([md.value, k ? [...k.tools].sort() : null]) === asLoaded;
      saveButton.disabled = same;
      saveHint.textContent = same ? 'No changes to save.' : '';
    };
    md.addEventListener('input', changed);
    hasKit.addEventListener('change', changed);
    for (const b of boxes) b.cb.addEventListener('change', changed);
    changed();
    const head = h(
      'div',
      { class: 'page-head' },
      h('h2', {}, name, ' ', badge(role.state)),
      h('p', { class: 'sentence', 'data-state': role.state, hidden: stateInfo(role.state).sentence === stateInfo(role.state).label }, stateInfo(role.state).sentence),
    );
    const toolbar = h(
      'div',
      { class: 'toolbar', role: 'toolbar', 'aria-label': 'Role actions' },
      saveButton,
      canReset(role.state, role.shipped_role_md !== null) ? h('button', { type: 'button', onclick: () => reset() }, 'Reset role to built-in') : null,
      h('button', { type: 'button', onclick: () => void reload() }, 'Reload'),
      saveHint,
    );
    const reload = async () => {
      await load();
      say(`Reloaded role ${name}.`, el.querySelector('.toolbar')!);
    };
    /** a 412: the role changed elsewhere — the badge follows the service, the text typed here stays */
    const conflict = async () => {
      try {
        showState(head, (await call<RoleAnswer>('GET', `/roles/${enc(name)}`)).body.state);
      } catch {
        // the alert already says to reload
      }
    };
    const fail = (what: string, e: unknown) => {
      const stale = e instanceof ApiError && e.status === 412;
      const alert = h('p', { class: 'callout error', role: 'alert', tabindex: '-1' }, stale ? `${what}: this role changed elsewhere. Reload to see it.` : `${what}: ${errorText(e)}`);
      notices.append(alert);
      if (e instanceof ApiError && e.problems.length) {
        notices.append(h('ul', { class: 'problems' }, e.problems.map((p) => h('li', { class: `problem ${p.severity}` }, h('code', {}, p.code), ' ', p.message))));
      }
      if (focusLost()) alert.focus();
      if (stale) void conflict();
    };

    const save = async () => {
      clear(notices);
      saveButton.disabled = true;
      try {
        await call('POST', '/role', { body: { name, role_md: md.value, kit: kit() }, ifMatch: etag });
        await load();
        // the view is drawn again, so the message goes by the new toolbar and takes the focus the old Save had
        say(`Saved role ${name}. It reads ${stateInfo(role.state).label}.`, el.querySelector('.toolbar')!);
      } catch (e) {
        changed();
        fail('Not saved', e);
      }
    };
    const reset = () =>
      confirmInline(notices, `Reset role ${name}? Its folder is removed and the built-in role loads.`, 'Yes, reset', async () => {
        try {
          await call('POST', '/role', { body: { name, reset: true }, ifMatch: etag });
          await load();
          say(`Reset role ${name} to the built-in one.`, el.querySelector('.toolbar')!);
        } catch (e) {
          fail('Not reset', e);
        }
      });

    add(
      el,
      h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Library'), ' / roles / ', name),
      head,
      role.edited_outside ? h('p', { class: 'callout warning', role: 'note' }, 'Edited outside the service: these files changed without a save here.') : null,
      // A role folder edited by hand can load invalid (empty role.md, a kit with an unknown tool).
      role.valid
        ? null
        : h(
            'div',
            { class: 'callout error', role: 'note', 'data-role-invalid': '' },
            h('p', {}, h('strong', {}, 'Not valid as it loads.'), ' Fix these and save:'),
            h('ul', {}, role.problems.map((p) => h('li', { class: `problem ${p.severity}` }, h('code', {}, p.code), ' ', h('code', {}, p.path), ' ', p.message))),
          ),
      toolbar,
      notices,
      h('div', { class: 'role-grid' },
        h('div', {}, h('label', { for: 'role-md', class: 'label' }, 'role.md'), md),
        h(
          'fieldset',
          { class: 'kit' },
          h('legend', {}, 'Kit'),
          h('p', {}, hasKit, ' ', h('label', { for: 'has-kit' }, 'This role has a kit (kit.json)')),
          h('ul', { class: 'tools', 'aria-label': 'Tools in the kit' }, boxes.map((b) => b.row)),
        ),
      ),
      role.shipped_role_md !== null && role.shipped_role_md !== role.role_md
        ? h('details', {}, h('summary', {}, 'The built-in role.md'), h('pre', { class: 'prose' }, role.shipped_role_md))
        : null,
      // its versions, a diff of each against what loads, restore (history-view.ts)
      historySection({ kind: 'role', name, etag, dirty: false, restored: async (message) => {
        await load();
        say(message);
      } }),
    );
  };

  await load();
  return el;
}
