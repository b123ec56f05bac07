import { ApiError, call, enc } from './api.js';
import { add, clear, h } from './dom.js';
import { historySection } from './history-view.js';
import { KNOWN_TOOLS } from './known-tools.js';
import { canReset, stateInfo } from './states.js';
import type { Kit, RoleAnswer } from '../schema/roles.js';
import { badge, confirmInline, errorText, say } from './ui.js';


/** One role: role.md and the kit's tools, saved with POST /api/desk/role, with its own reset. */
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
    const tools = [...new Set<string>([...KNOWN_TOOLS, ...(role.kit?.tools ?? [])])];
    const boxes = tools.map((t) => {
      const id = `tool-${t.replace(/\W/g, '-')}`;
      const cb = h('input', { type: 'checkbox', id, value: t, checked: role.kit?.tools.includes(t) ?? false, disabled: role.kit === null });
      return { cb, row: h('li', {}, cb, ' ', h('label', { for: id }, h('code', {}, t))) };
    });
    hasKit.addEventListener('change', () => {
      for (const b of boxes) b.cb.disabled = !hasKit.checked;
    });
    const kit = (): Kit | null => (hasKit.checked ? { tools: boxes.filter((b) => b.cb.checked).map((b) => b.cb.value) } : null);

    const save = async () => {
      clear(notices);
      try {
        await call('POST', '/role', { body: { name, role_md: md.value, kit: kit() }, ifMatch: etag });
        await load();
        say(`Saved role ${name}. It reads ${stateInfo(role.state).label}.`);
      } catch (e) {
        notices.append(h('p', { class: 'callout error', role: 'alert' }, e instanceof ApiError && e.status === 412 ? 'Not saved: this role changed elsewhere. Reload to see it.' : `Not saved: ${errorText(e)}`));
        if (e instanceof ApiError && e.problems.length) {
          notices.append(h('ul', { class: 'problems' }, e.problems.map((p) => h('li', { class: `problem ${p.severity}` }, h('code', {}, p.code), ' ', p.message))));
        }
      }
    };
    const reset = () =>
      confirmInline(notices, `Reset role ${name}? Its folder is removed and the built-in role loads.`, 'Yes, reset', async () => {
        try {
          await call('POST', '/role', { body: { name, reset: true }, ifMatch: etag });
          await load();
          say(`Reset role ${name} to the built-in one.`);
        } catch (e) {
          notices.append(h('p', { class: 'callout error', role: 'alert' }, `Not reset: ${errorText(e)}`));
        }
      });

    add(
      el,
      h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Library'), ' / roles / ', name),
      h('h2', {}, name, ' ', badge(role.state)),
      stateInfo(role.state).sentence === stateInfo(role.state).label ? null : h('p', { class: 'sentence', 'data-state': role.state }, stateInfo(role.state).sentence),
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
      h(
        'div',
        { class: 'toolbar', role: 'toolbar', 'aria-label': 'Role actions' },
        h('button', { type: 'button', class: 'primary', onclick: () => void save() }, 'Save role'),
        canReset(role.state, role.shipped_role_md !== null) ? h('button', { type: 'button', onclick: reset }, 'Reset role to built-in') : null,
        h('button', { type: 'button', onclick: () => void load() }, 'Reload'),
      ),
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
