import type { EditorView } from '@codemirror/view';
import { type Answer, ApiError, call, enc, type RequestOptions } from './api.js';
import { add, clear, h } from './dom.js';
import { historySection } from './history-view.js';
import { CompareViews } from './merge-compare.js';
import { replaceText, showMarks, textEditor } from './role-editors.js';
import { roleMerge } from './role-merge.js';
import { askReload } from './template-panels.js';
import { canReset, stateInfo } from './states.js';
import { offsetOf, position } from './format.js';
import type { Kit, RoleAnswer } from '../schema/roles.js';
import { TOOLS } from '../template/catalog/tools.js';
import { validateKitText, validateRoleMd } from '../template/kit.js';
import type { Problem } from '../template/problems.js';
import { badge, confirmInline, errorText, focusLost, say, type SayKind, showState, unsay } from './ui.js';
import { can } from './me.js';

/**
 * One role: `role.md` and `kit.json` in editors, checked as typed by the
 * same role check the service runs (src/template/kit.ts), saved with
 * POST /api/desk/role and If-Match, with its own reset. It edits like a
 * template: the unsaved dot, Ctrl/Cmd+S, the leave guard (main.ts), and a
 * save made elsewhere followed when nothing is edited here, or met as a
 * conflict when something is: merge it with the edits (role-merge.ts: base
 * the version loaded, theirs the saved one, mine the editors), reload, or
 * save what the editors hold over it.
 * Save is disabled while the text and the kit's tools (as a set) are as
 * loaded: a save of an unchanged built-in role would only freeze a
 * same-as-shipped copy.
 */

/** kit.json as the page writes it: the kit's JSON, two-space indented; no kit is an empty box */
function kitText(kit: Kit | null): string {
  return kit === null ? '' : `${JSON.stringify({ tools: kit.tools }, null, 2)}\n`;
}

/** The kit typed: none (an empty box), a kit, or its problems. */
function readKit(text: string): { kit: Kit | null; problems: Problem[] } {
  if (text.trim() === '') return { kit: null, problems: [] };
  return validateKitText(text);
}

const sameKit = (x: Kit | null, y: Kit | null) => JSON.stringify(x ? [...x.tools].sort() : null) === JSON.stringify(y ? [...y.tools].sort() : null);

export class RolePage {
  readonly el = h('section', { class: 'role-page' });
  private role!: RoleAnswer;
  private etag: string | null = null;
  private md: EditorView | null = null;
  private kit: EditorView | null = null;
  private readonly head = h('div', { class: 'page-head' });
  private readonly toolbar = h('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Role actions' });
  private readonly notices = h('div', { class: 'notices' });
  private saveButton = h('button', { type: 'button', class: 'primary' }, 'Save role');
  private readonly saveHint = h('span', { class: 'hint', id: 'role-save-hint' });
  private readonly dot = h('span', { class: 'unsaved-dot', title: 'Unsaved changes', hidden: true }, h('span', { 'aria-hidden': 'true' }, '●'), h('span', { class: 'visually-hidden' }, 'unsaved changes'));
  /** each file's problems under its own editor: role.md's, and kit.json's at their line and column */
  private readonly problemList = h('ul', { class: 'problems role-problems', 'aria-label': 'Problems in role.md' });
  private readonly kitProblemList = h('ul', { class: 'problems role-problems', 'aria-label': 'Problems in kit.json' });
  /** why the kit's boxes are closed, when they are */
  private readonly kitWhy = h('p', { class: 'hint kit-why', id: 'kit-why', hidden: true });
  private boxes: { cb: HTMLInputElement; tool: string }[] = [];
  private hasKit: HTMLInputElement | null = null;
  private writing = 0;
  private readonly ours = new Set<string>();
  private heard: string | null | undefined = undefined;
  /** the version met elsewhere: what a merge or "save mine over it" goes onto */
  private theirs: { body: RoleAnswer; etag: string | null } | null = null;
  /** the compare views of this page's history diffs, destroyed when it is left */
  private readonly compares = new CompareViews();

  constructor(readonly name: string) {}

  async load(): Promise<void> {
    const { body, etag } = await call<RoleAnswer>('GET', `/roles/${enc(this.name)}`);
    this.role = body;
    this.etag = etag;
    this.theirs = null;
    this.render();
  }

  dispose(): void {
    this.md?.destroy();
    this.kit?.destroy();
    this.compares.destroyIn(this.el);
  }

  private get mdText(): string {
    return this.md?.state.doc.toString() ?? this.role.role_md;
  }

  private get kitSource(): string {
    return this.kit?.state.doc.toString() ?? kitText(this.role.kit);
  }

  /** unsaved edits in either editor (the leave guard asks before they are lost) */
  get dirty(): boolean {
    if (!this.md) return false;
    if (this.mdText !== this.role.role_md) return true;
    const typed = readKit(this.kitSource);
    return typed.problems.length > 0 || !sameKit(typed.kit, this.role.kit);
  }

  /** Ctrl/Cmd+S: the Save button's path; when Save is closed, says why. */
  async saveShortcut(): Promise<void> {
    if (this.saveButton.disabled) {
      say(this.saveHint.textContent || 'Nothing to save.', this.toolbar, this.problems().some((p) => p.severity === 'error') ? 'warning' : 'info');
      return;
    }
    await this.save();
  }

  /** An event: this role changed, or may have (`null`). Our own writes are not news; no edits here follow it. */
  changedElsewhere(etag: string | null): void {
    if (this.writing > 0) {
      this.heard = etag;
      return;
    }
    if (etag !== null && (etag === this.etag || this.ours.has(etag))) return;
    if (!this.dirty) void this.follow();
    // a conflict already shown, or its merge open, stays: a save onto an older version is a 412 and a fresh conflict
    else if (!this.notices.querySelector('.conflict, .rebase[data-merge="saved"]')) void this.met('elsewhere');
  }

  private async follow(): Promise<void> {
    try {
      const { body, etag } = await call<RoleAnswer>('GET', `/roles/${enc(this.name)}`);
      if (etag === this.etag) return;
      if (this.dirty) {
        void this.met('elsewhere');
        return;
      }
      this.role = body;
      this.etag = etag;
      this.render();
      say(`Role ${this.name} was saved elsewhere; this tab now shows that version. It reads ${stateInfo(body.state).label}.`, this.toolbar, 'info');
    } catch {
      // a missed hint: Save still meets the ETag guard
    }
  }

  private async write<T>(method: string, path: string, opts: RequestOptions): Promise<Answer<T>> {
    this.writing += 1;
    try {
      const a = await call<T>(method, path, opts);
      if (a.etag) this.ours.add(a.etag);
      return a;
    } finally {
      this.writing -= 1;
      if (this.writing === 0 && this.heard !== undefined) {
        const etag = this.heard;
        this.heard = undefined;
        this.changedElsewhere(etag);
      }
    }
  }

  /** The role check's problems for what the editors hold. */
  private problems(): Problem[] {
    return [...validateRoleMd(this.mdText), ...readKit(this.kitSource).problems];
  }

  /** After every edit: the dot, the problems (list and marks), the kit's boxes and Save. */
  private changed(): void {
    unsay(this.toolbar);
    const dirty = this.dirty;
    this.dot.hidden = !dirty;
    const problems = this.problems();
    const inKit = (p: Problem) => p.path.startsWith('/kit');
    listProblems(this.problemList, problems.filter((p) => !inKit(p)));
    listProblems(this.kitProblemList, problems.filter(inKit));
    if (this.kit) showMarks(this.kit, kitMarks(this.kitSource, problems));
    this.syncBoxes();
    const errors = problems.some((p) => p.severity === 'error');
    this.saveButton.disabled = !dirty || errors;
    this.saveHint.textContent = !dirty ? 'No changes to save.' : errors ? 'Fix the problems before saving.' : '';
    this.saveHint.dataset.status = !dirty ? 'clean' : errors ? 'invalid' : 'valid';
  }

  /** The kit's boxes follow kit.json; they are closed while it cannot be read as a kit. */
  private syncBoxes(): void {
    const typed = readKit(this.kitSource);
    const readable = typed.problems.length === 0 || typed.problems.every((p) => p.code === 'tool.unknown');
    const tools = (() => {
      try {
        const v = JSON.parse(this.kitSource) as { tools?: unknown };
        return Array.isArray(v.tools) ? v.tools.filter((t): t is string => typeof t === 'string') : [];
      } catch {
        return [];
      }
    })();
    const none = this.kitSource.trim() === '';
    const editor = can('editor');
    if (this.hasKit) {
      this.hasKit.checked = !none;
      this.hasKit.disabled = !editor || (!readable && !none);
    }
    for (const b of this.boxes) {
      b.cb.checked = !none && tools.includes(b.tool);
      b.cb.disabled = !editor || none || !readable;
    }
    // a closed box says why (its aria-describedby), so the greyed-out list is never a riddle
    const why = !editor
      ? 'Changing the kit needs the editor role.'
      : !readable && !none
        ? 'The boxes are closed while kit.json cannot be read as a kit: fix its problems above.'
        : none
          ? 'This role has no kit: tick “This role has a kit” to choose its tools.'
          : '';
    if (this.kitWhy.textContent !== why) this.kitWhy.textContent = why;
    this.kitWhy.hidden = why === '';
  }

  /** A box of the kit changed: kit.json is written again from the boxes (the editor keeps its undo). */
  private fromBoxes(): void {
    if (!this.kit) return;
    if (!this.hasKit?.checked) {
      replaceText(this.kit, '');
      return;
    }
    let tools: string[] = [];
    try {
      const v = JSON.parse(this.kitSource) as { tools?: unknown };
      if (Array.isArray(v.tools)) tools = v.tools.filter((t): t is string => typeof t === 'string');
    } catch {
      // an empty or unreadable kit starts again from the boxes
    }
    const known = new Set(this.boxes.map((b) => b.tool));
    const next = [...tools.filter((t) => !known.has(t)), ...this.boxes.filter((b) => b.cb.checked).map((b) => b.tool)];
    // the kit's own order is kept for the tools it had; new ones go at the end
    const ordered = [...tools.filter((t) => next.includes(t)), ...next.filter((t) => !tools.includes(t))];
    replaceText(this.kit, kitText({ tools: ordered }));
  }

  private render(): void {
    this.dispose();
    clear(this.el);
    const role = this.role;
    const name = this.name;
    const mdHost = h('div', { class: 'role-md' });
    const kitHost = h('div', { class: 'role-kit' });
    // a viewer or a conductor reads the role: editors they could type in would hold edits that go nowhere
    const readOnly = !can('editor');
    this.md = textEditor(mdHost, { doc: role.role_md, label: `role.md of ${name}`, prose: true, readOnly, onChange: () => this.changed() });
    this.kit = textEditor(kitHost, { doc: kitText(role.kit), label: `kit.json of ${name}`, prose: false, readOnly, onChange: () => this.changed() });
    this.hasKit = h('input', { type: 'checkbox', id: 'has-kit', 'aria-describedby': 'kit-why', onchange: () => this.fromBoxes() });
    // the catalogue's tools, then any the kit lists that it does not: nothing in kit.json is dropped silently
    const tools = [...new Set<string>([...Object.keys(TOOLS), ...(role.kit?.tools ?? [])])];
    this.boxes = tools.map((tool) => ({ tool, cb: h('input', { type: 'checkbox', id: `tool-${tool.replace(/\W/g, '-')}`, value: tool, 'aria-describedby': 'kit-why', onchange: () => this.fromBoxes() }) }));
    this.saveButton = h('button', { type: 'button', class: 'primary', 'aria-describedby': 'role-save-hint', onclick: () => void this.save() }, 'Save role');
    clear(this.head);
    add(
      this.head,
      h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Library'), ' / roles / ', name),
      h('h2', {}, name, ' ', this.dot, badge(role.state)),
      h('p', { class: 'sentence', 'data-state': role.state, hidden: stateInfo(role.state).sentence === stateInfo(role.state).label }, stateInfo(role.state).sentence),
    );
    clear(this.toolbar);
    add(
      this.toolbar,
      can('editor') ? this.saveButton : null,
      can('editor') && canReset(role.state, role.shipped_role_md !== null) ? h('button', { type: 'button', onclick: () => this.reset() }, 'Reset role to built-in') : null,
      h('button', { type: 'button', onclick: () => void this.reload('Reloaded role') }, 'Reload'),
      this.saveHint,
    );
    clear(this.notices);
    add(
      this.el,
      this.head,
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
      this.toolbar,
      this.notices,
      h(
        'div',
        { class: 'role-grid' },
        h('div', {}, h('p', { class: 'label', id: 'role-md-label' }, 'role.md'), mdHost, this.problemList),
        h(
          'div',
          {},
          h('p', { class: 'label' }, 'kit.json'),
          kitHost,
          this.kitProblemList,
          h(
            'fieldset',
            { class: 'kit' },
            h('legend', {}, 'Kit'),
            h('p', {}, this.hasKit, ' ', h('label', { for: 'has-kit' }, 'This role has a kit (kit.json)')),
            this.kitWhy,
            h('ul', { class: 'tools', 'aria-label': 'Tools in the kit' }, this.boxes.map((b) => h('li', {}, b.cb, ' ', h('label', { for: b.cb.id }, h('code', {}, b.tool))))),
          ),
        ),
      ),
      role.shipped_role_md !== null && role.shipped_role_md !== role.role_md
        ? h('details', {}, h('summary', {}, 'The built-in role.md'), h('pre', { class: 'prose' }, role.shipped_role_md))
        : null,
      // its versions, a diff of each against what loads, restore (history-view.ts)
      historySection({
        kind: 'role',
        name,
        etag: this.etag,
        dirty: false,
        write: (method, path, opts) => this.write(method, path, opts),
        restored: async (message) => {
          await this.load();
          say(message, this.toolbar);
        },
        compares: this.compares,
      }),
    );
    this.changed();
  }

  private async reload(what: string): Promise<void> {
    try {
      await this.load();
      say(`${what} ${this.name}.`, this.toolbar);
    } catch (e) {
      this.notice('error', `Not reloaded: ${errorText(e)}`);
    }
  }

  private async save(etag = this.etag): Promise<void> {
    const kit = readKit(this.kitSource);
    if (kit.problems.length) return;
    clear(this.notices);
    this.saveButton.disabled = true;
    try {
      await this.write('POST', '/role', { body: { name: this.name, role_md: this.mdText, kit: kit.kit }, ifMatch: etag });
      await this.load();
      say(`Saved role ${this.name}. It reads ${stateInfo(this.role.state).label}.`, this.toolbar);
    } catch (e) {
      this.changed();
      if (e instanceof ApiError && e.status === 412) void this.met('refused');
      else this.fail('Not saved', e);
    }
  }

  /** Edits here met a save made elsewhere: the badge follows; merge, reload, or save what the editors hold over it. */
  private async met(kind: 'refused' | 'elsewhere'): Promise<void> {
    let body: RoleAnswer;
    try {
      const a = await call<RoleAnswer>('GET', `/roles/${enc(this.name)}`);
      body = a.body;
      if (kind === 'elsewhere' && a.etag === this.etag) return;
      this.theirs = { body, etag: a.etag };
    } catch (e) {
      this.fail(kind === 'refused' ? 'Not saved' : 'Changed elsewhere', e);
      return;
    }
    showState(this.head, body.state);
    clear(this.notices);
    unsay(this.toolbar);
    this.notices.append(
      h(
        'div',
        { class: `callout ${kind === 'refused' ? 'error' : 'warning'} conflict`, role: kind === 'refused' ? 'alert' : 'group', 'aria-label': kind === 'refused' ? null : 'Changed elsewhere', 'data-conflict': kind },
        h('p', {}, h('strong', {}, kind === 'refused' ? 'Not saved: this role changed elsewhere' : 'This role changed elsewhere'), ` since you opened it. It reads ${stateInfo(body.state).label} now. Your text is still in the editors, unsaved.`),
        h(
          'p',
          { class: 'actions' },
          h('button', { type: 'button', class: 'primary', onclick: () => this.mergeTheirs() }, 'Merge with the saved version'),
          // it drops the edits: asked first (template-panels.ts)
          h('button', { type: 'button', onclick: (ev: Event) => askReload(ev.currentTarget as HTMLButtonElement, { reload: () => void this.reload('Reloaded the saved version of role'), dirty: () => this.dirty }) }, 'Reload the saved version'),
          // what the editors hold at the click, onto the version just seen (a later save elsewhere is a 412 again)
          h('button', { type: 'button', class: 'danger', onclick: () => void this.save(this.theirs?.etag ?? null) }, 'Save mine over it'),
        ),
      ),
    );
  }

  /**
   * The three-way merge of a conflict, file by file: base the version this
   * tab loaded, theirs the one saved elsewhere, mine what the editors hold
   * now. "Use this" makes theirs the version edited against (its ETag goes
   * with the next Save) and puts the results in the editors, unsaved.
   */
  private mergeTheirs(): void {
    const theirs = this.theirs;
    if (!theirs) return;
    const back = [...this.notices.childNodes];
    const panel = roleMerge(
      this.name,
      [
        { file: 'role.md', mine: this.mdText, base: this.role.role_md, theirs: theirs.body.role_md },
        { file: 'kit.json', mine: this.kitSource, base: kitText(this.role.kit), theirs: kitText(theirs.body.kit) },
      ],
      {
        use: ([md, kit]) => {
          this.role = theirs.body;
          this.etag = theirs.etag;
          this.theirs = null;
          this.render();
          if (this.md) replaceText(this.md, md!);
          if (this.kit) replaceText(this.kit, kit!);
          say('Merged text loaded into the editors, unsaved; check it, then save.', this.toolbar, 'info');
          this.md?.focus();
        },
        close: () => {
          clear(this.notices);
          this.notices.append(...back);
        },
      },
    );
    clear(this.notices);
    this.notices.append(panel);
  }

  private reset(): void {
    confirmInline(this.notices, `Reset role ${this.name}? Its folder is removed and the built-in role loads.`, 'Yes, reset', async () => {
      try {
        await this.write('POST', '/role', { body: { name: this.name, reset: true }, ifMatch: this.etag });
        await this.load();
        say(`Reset role ${this.name} to the built-in one.`, this.toolbar);
      } catch (e) {
        if (e instanceof ApiError && e.status === 412) void this.met('refused');
        else this.fail('Not reset', e);
      }
    });
  }

  private fail(what: string, e: unknown): void {
    this.notice('error', `${what}: ${errorText(e)}`);
    if (e instanceof ApiError && e.problems.length) {
      this.notices.append(h('ul', { class: 'problems' }, e.problems.map((p) => h('li', { class: `problem ${p.severity}` }, h('code', {}, p.code), ' ', p.message))));
    }
  }

  private notice(kind: SayKind, text: string): void {
    clear(this.notices);
    const msg = say(text, this.toolbar, kind);
    if (msg && focusLost()) msg.focus();
  }
}

/** Where each kit problem is in kit.json: at its line and column when it has them (not JSON), an unknown tool at its string, anything else on the first line. */
function kitMarks(text: string, problems: Problem[]): { from: number; to: number; severity: 'error' | 'warning'; message: string }[] {
  return problems
    .filter((p) => p.path.startsWith('/kit'))
    .map((p) => {
      const tool = /^\/kit\/tools\/(\d+)$/.exec(p.path);
      let from = 0;
      let to = text.indexOf('\n') < 0 ? text.length : text.indexOf('\n');
      if (p.line != null) {
        from = Math.min(text.length, offsetOf(text, p.line, p.column ?? 1));
        to = Math.min(text.length, from + 1);
        if (from === to && from > 0) from -= 1; // the text ended early: the mark goes on its last character
      } else if (tool) {
        try {
          const name = (JSON.parse(text) as { tools: unknown[] }).tools[Number(tool[1])];
          const at = typeof name === 'string' ? text.indexOf(JSON.stringify(name)) : -1;
          if (at >= 0) {
            from = at;
            to = at + JSON.stringify(name).length;
          }
        } catch {
          // the first line then
        }
      }
      return { from, to, severity: p.severity, message: `${p.code}: ${p.message}` };
    });
}

/** A file's problems as a list: severity, code, line:column when known, path, message. */
function listProblems(list: HTMLElement, problems: Problem[]): void {
  clear(list);
  for (const p of problems) {
    list.append(
      h(
        'li',
        { class: `problem ${p.severity}`, 'data-code': p.code, 'data-path': p.path, 'data-line': p.line ?? null },
        h('span', { class: 'sev' }, p.severity),
        ' ',
        h('code', { class: 'code-id' }, p.code),
        ' ',
        p.line != null ? h('span', { class: 'at' }, position(p)) : h('code', {}, p.path),
        ' ',
        h('span', { class: 'msg' }, p.message),
      ),
    );
  }
  list.hidden = problems.length === 0;
}

/** The role's page, loaded (main.ts keeps it to ask before its edits are lost). */
export async function rolePage(name: string): Promise<RolePage> {
  const page = new RolePage(name);
  await page.load();
  return page;
}
