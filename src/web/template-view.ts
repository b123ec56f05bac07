import { type Answer, ApiError, call, enc, type RequestOptions } from './api.js';
import { cardView } from './card-view.js';
import { add, clear, h } from './dom.js';
import { EditorView } from '@codemirror/view';
import { Editor, type EditorStatus } from './editor.js';
import { CompareViews } from './merge-compare.js';
import { canRebase, canReset, stateInfo } from './states.js';
import { conflictBox, fillDiffPanel, rebasePreview } from './template-panels.js';
import { mergeChoices } from './merge-rebase.js';
import { threeWayParts } from './merge-three.js';
import { fillLaunchPanel } from './launch-view.js';
import { fillHistoryPanel } from './history-view.js';
import type { Card } from '../schema/card.js';
import type { ProposalAnswer } from '../schema/proposals.js';
import type { TemplateAnswer, TemplateSummary } from '../schema/templates.js';
import type { DivergedTemplate } from '../schema/sync.js';
import type { ProposalHandoff } from './proposal-handoff.js';
import type { PageValidator } from './validator.js';
import { duplicateForm } from './duplicate.js';
import { divergedPanel } from './sync-diverged.js';
import { badge, confirmInline, errorText, focusLost, say, type SayKind, showState, unsay } from './ui.js';
import { can } from './me.js';

export type Tab = 'source' | 'card' | 'diff' | 'launch' | 'history';

/**
 * One template: header with its state, the actions its state allows, and
 * three tabs (source with the editor, the card, the diff). The page object
 * lives while the hash names this template, so a draft survives tab changes.
 */
export class TemplatePage {
  readonly el = h('section', { class: 'template-page' });
  private detail!: TemplateAnswer;
  private etag: string | null = null;
  private editor!: Editor;
  private draftCard: Card | null = null;
  private tab: Tab = 'source';
  private readonly head = h('div', { class: 'page-head' });
  private readonly toolbar = h('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Template actions' });
  private readonly notices = h('div', { class: 'notices' });
  private readonly panels = {
    source: h('div', { class: 'panel', id: 'panel-source' }),
    card: h('div', { class: 'panel', id: 'panel-card' }),
    diff: h('div', { class: 'panel', id: 'panel-diff' }),
    launch: h('div', { class: 'panel', id: 'panel-launch' }),
    history: h('div', { class: 'panel', id: 'panel-history' }),
  };
  /** the ETag the launch form was built for: kept (with what was typed) until the template is read again */
  private launchFor: string | null | undefined = undefined;
  private readonly tabs = h('nav', { class: 'tabs', 'aria-label': 'Views of the template' });
  private saveButton = h('button', { type: 'button', class: 'primary' }, 'Save');
  private saveHint = h('span', { class: 'hint', id: 'save-hint' });
  /** closed while there is nothing to revert */
  private revertButton = h('button', { type: 'button' }, 'Revert edits');
  /** the optional one-line note of the next save, kept in its history entry (docs/api.md, "Save with a note") */
  private readonly noteInput = h('input', { type: 'text', class: 'save-note', maxlength: 200, 'aria-label': 'Note for the history (optional, one line)', placeholder: 'Note (optional)' });
  private diffAgainst = '';
  /** writes in flight, the ETags they answered, and an event heard meanwhile (changedElsewhere) */
  private writing = 0;
  private readonly ours = new Set<string>();
  private heard: string | null | undefined = undefined;
  /** the unsaved-changes dot by the title */
  private readonly dot = h('span', { class: 'unsaved-dot', title: 'Unsaved changes', hidden: true }, h('span', { 'aria-hidden': 'true' }, '●'), h('span', { class: 'visually-hidden' }, 'unsaved changes'));
  private gone = false;
  /** a teammate's new template that does not validate here, opened from its remote text: nothing loads under the name */
  private incoming = false;
  /** a proposal opened in this editor (proposal-handoff.ts): Save decides it */
  private proposal: ProposalAnswer | null = null;
  /** the version saved elsewhere that this tab's edits met (a 412, or an event while edited): what a merge or an overwrite goes onto */
  private theirs: { detail: TemplateAnswer; etag: string | null } | null = null;
  /** the compare views this page's panels made, destroyed when it is left */
  private readonly compares = new CompareViews();

  constructor(
    readonly name: string,
    private readonly templates: () => Promise<TemplateSummary[]>,
    /** the page's validator (main.ts makes it): the editor's checks and the merge previews' */
    private readonly validator: PageValidator,
    /** a proposal handed over to this name's editor (the proposals view's "Open in editor") */
    private readonly handoff: ProposalHandoff,
  ) {}

  async load(): Promise<void> {
    const proposal = this.handoff.takeOver(this.name);
    let body: TemplateAnswer;
    let etag: string | null;
    try {
      ({ body, etag } = await call<TemplateAnswer>('GET', `/templates/${enc(this.name)}`));
    } catch (e) {
      // a teammate's new template that does not validate here: nothing loads under its name; its text opens in the
      // editor to be fixed and saved (which publishes it), or refused with Keep mine (docs/api.md, Sync)
      const incoming = !proposal && e instanceof ApiError && e.status === 404 ? await call<DivergedTemplate>('GET', `/sync/templates/${enc(this.name)}`).catch(() => null) : null;
      const text = incoming?.body.remote_source ?? null;
      const card = text === null ? null : await call<Card>('POST', '/templates/propose', { body: { name: this.name, source: text } }).catch(() => null);
      if (incoming && text !== null && card) {
        this.incoming = true;
        body = { name: this.name, state: 'diverged', shipped: false, read_only: false, edited_outside: false, source: text, shipped_source: null, valid: false, problems: card.body.problems, card: card.body, diverged: { reason: incoming.body.reason, problems: incoming.body.problems } };
        etag = null;
      } else {
        // a proposal of a new name: nothing is saved under it yet, so the editor starts empty and the save creates it
        if (!(proposal && e instanceof ApiError && e.status === 404)) throw e;
        body = { name: this.name, state: 'custom', shipped: false, read_only: false, edited_outside: false, source: '', shipped_source: null, valid: true, problems: [], card: proposal.card };
        etag = null;
      }
    }
    this.proposal = proposal;
    this.detail = body;
    this.etag = etag;
    this.draftCard = null;
    this.editor = new Editor({
      name: this.name,
      validator: this.validator,
      source: body.source,
      problems: body.problems,
      // a viewer or a conductor cannot save: an editor they could type in would only hold edits that go nowhere
      readOnly: body.read_only || !can('editor'),
      onCard: (card) => {
        this.draftCard = card;
        if (this.tab === 'card') this.renderCard();
      },
      onStatus: (st) => this.renderSave(st),
      onDirty: (dirty) => {
        this.dot.hidden = !dirty;
      },
      // what was said was about the text before this change
      onEdit: () => unsay(this.toolbar),
    });
    clear(this.el);
    this.el.append(this.head, this.toolbar, this.notices, this.tabs, this.panels.source, this.panels.card, this.panels.diff, this.panels.launch, this.panels.history);
    this.panels.source.append(this.editor.el);
    this.render();
    if (proposal) this.openProposal(proposal);
  }

  /** A proposal opened here (proposals.ts): its text in the editor, unsaved, and a banner saying Save decides it. */
  private openProposal(p: ProposalAnswer): void {
    this.editor.setText(p.source);
    clear(this.notices);
    this.notices.append(
      h(
        'div',
        { class: 'callout warning proposal-open', role: 'note', 'data-proposal': p.id },
        h('p', {}, h('strong', {}, `The proposal ${p.name}`), `${p.from ? ` from ${p.from}` : ''} is in the editor, unsaved: “${p.purpose}”. Save saves it to the library and decides the proposal (the conductor is told it was edited); leaving drops it and the proposal stays waiting.`),
      ),
    );
  }

  /**
   * The page is left (or was never shown). Every CodeMirror view listens on
   * the document and the window until destroyed, so each one the page made
   * is: the editor, the compare views (diff, history, conflicts), and the
   * rebase preview's conflict editors if it is still open.
   */
  dispose(): void {
    this.editor?.destroy();
    this.compares.destroyIn(this.el);
    for (const el of this.el.querySelectorAll<HTMLElement>('.cm-editor')) EditorView.findFromDOM(el)?.destroy();
  }

  /** unsaved text in the editor (the leave guard asks before it is lost); false once the template is deleted */
  get dirty(): boolean {
    return !this.gone && (this.editor?.dirty ?? false);
  }

  /** Ctrl/Cmd+S: the Save button's path, once the text as typed is checked; when Save is closed, says why. */
  async saveShortcut(): Promise<void> {
    if (this.detail.read_only) {
      say('This template is read-only here.', this.toolbar, 'info');
      return;
    }
    if (!can('editor')) {
      say('Saving needs the editor role.', this.toolbar, 'info');
      return;
    }
    const st = await this.editor.settled();
    if (this.saveButton.disabled) {
      say(this.saveHint.textContent || 'Nothing to save.', this.toolbar, st === 'invalid' ? 'warning' : 'info');
      return;
    }
    await this.save();
  }

  show(tab: Tab): void {
    // a result said on one tab ("Saved") is not news on the next
    if (tab !== this.tab) unsay(this.toolbar);
    this.tab = tab;
    for (const [k, p] of Object.entries(this.panels)) p.hidden = k !== tab;
    this.renderTabs();
    if (tab === 'card') this.renderCard();
    if (tab === 'diff') void this.renderDiff();
    if (tab === 'launch') this.renderLaunch();
    if (tab === 'history') void this.renderHistory();
  }

  /**
   * An event (live.ts): this template changed, or may have (`null`: the
   * stream lost track). Our own save's event carries the ETag we hold, so it
   * says nothing; anything else is said before the user presses Save.
   */
  changedElsewhere(etag: string | null): void {
    // the service writes the event before it answers the write, so our own write's event can come first
    if (this.writing > 0) {
      this.heard = etag;
      return;
    }
    if (etag !== null && (etag === this.etag || this.ours.has(etag))) return;
    // no edits here: nothing to lose, so the tab follows the save made elsewhere
    if (!this.dirty) void this.follow();
    else if (!this.notices.querySelector('.conflict, .rebase[data-merge="saved"]')) void this.met('elsewhere');
  }

  /** A tab with no edits loads what was saved elsewhere, and says so (the live region, nothing to answer). */
  private async follow(): Promise<void> {
    try {
      const { body, etag } = await call<TemplateAnswer>('GET', `/templates/${enc(this.name)}`);
      if (etag === this.etag || this.dirty) {
        if (this.dirty && etag !== this.etag) void this.met('elsewhere');
        return;
      }
      this.adopt(body, etag);
      this.editor.setText(body.source, { problems: body.problems });
      this.render();
      say(`${this.name} was saved elsewhere; this tab now shows that version. It reads ${stateInfo(body.state).label}.`, this.toolbar, 'info');
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) say(`${this.name} was deleted elsewhere.`, this.toolbar, 'warning');
    }
  }

  /** The saved version becomes the one this tab edits against: its text, state and ETag. */
  private adopt(body: TemplateAnswer, etag: string | null): void {
    this.detail = body;
    this.etag = etag;
    this.draftCard = null;
    this.theirs = null;
    this.launchFor = undefined;
  }

  /** After the stream lost track (a `resync`): compare the ETag the service has now with ours. */
  async recheck(): Promise<void> {
    try {
      const { body, etag } = await call<TemplateAnswer>('GET', `/templates/${enc(this.name)}`);
      if (etag === this.etag) {
        // the same version, but the names it is checked against may have changed meanwhile (a role added, removed)
        this.detail = body;
        this.editor.recheck(body.problems);
      } else this.changedElsewhere(etag);
    } catch {
      this.changedElsewhere(null);
    }
  }

  /** Every write of this page: what it answers is ours, so the events it causes are not news. */
  private async write<T>(method: string, path: string, opts: RequestOptions, etagIn?: (body: T) => string | null): Promise<Answer<T>> {
    this.writing += 1;
    try {
      const a = await call<T>(method, path, opts);
      if (a.etag) this.ours.add(a.etag);
      // an answer about something else (a proposal) names the template's new ETag in its body
      const inBody = etagIn?.(a.body);
      if (inBody) this.ours.add(inBody);
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

  /** After a write: read the template again so state, card and ETag are the service's. */
  private async refresh(message?: string): Promise<void> {
    const { body, etag } = await call<TemplateAnswer>('GET', `/templates/${enc(this.name)}`);
    this.adopt(body, etag);
    this.editor.setText(body.source, { problems: body.problems });
    this.render();
    // said by the toolbar, where the action was; it takes the focus when the action's button was redrawn away
    if (message) say(`${message} It reads ${stateInfo(body.state).label}.`, this.toolbar);
  }

  private render(): void {
    this.renderHead();
    this.renderToolbar();
    this.renderSave(this.editor.status);
    this.show(this.tab);
  }

  private renderHead(): void {
    const d = this.detail;
    const info = stateInfo(d.state);
    clear(this.head);
    add(
      this.head,
      h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Library'), ' / templates / ', this.name),
      // a proposal under a new name is not in the library yet: no state to show until it is saved
      this.proposal && this.etag === null
        ? h('h2', {}, this.name, ' ', this.dot, h('span', { class: 'tag', 'data-state': 'proposed' }, 'proposed, not in the library yet'))
        : h('h2', {}, this.name, ' ', this.dot, badge(d.state)),
      info.sentence === info.label || (this.proposal && this.etag === null) ? null : h('p', { class: 'sentence', 'data-state': d.state }, info.sentence),
      d.edited_outside
        ? h('p', { class: 'callout warning', role: 'note' }, 'Edited outside the service: the file changed without a save here, so it was never validated on the way in.')
        : null,
      h('p', { class: 'purpose' }, d.card.purpose ?? ''),
      h(
        'p',
        { class: 'tags' },
        d.card.ticket ? h('span', { class: 'tag ticket' }, 'ticket template') : null,
        d.card.header?.writes ? h('span', { class: 'tag' }, 'writes') : null,
        d.card.header?.base ? h('span', { class: 'tag' }, `varies ${d.card.header.base}`) : null,
        d.valid ? null : h('span', { class: 'tag invalid' }, 'invalid'),
        d.read_only ? h('span', { class: 'tag' }, 'read-only') : null,
      ),
    );
  }

  private renderToolbar(): void {
    const d = this.detail;
    clear(this.toolbar);
    // what only an editor may do is left out for the others (me.ts); the previews stay
    const editor = can('editor');
    if (!d.read_only && editor) {
      this.saveButton = h('button', { type: 'button', class: 'primary', 'aria-describedby': 'save-hint', onclick: () => void this.save() }, 'Save');
      this.revertButton = h('button', { type: 'button', onclick: () => this.revert() }, 'Revert edits');
      add(
        this.toolbar,
        this.saveButton,
        // a proposal's save is decided with its own note (the conductor reads it): a note typed here would be dropped
        this.proposal ? null : this.noteInput,
        this.revertButton,
      );
    }
    if (editor && canReset(d.state, d.shipped)) {
      this.toolbar.append(h('button', { type: 'button', onclick: () => this.reset() }, 'Reset to shipped'));
    }
    if (editor && d.state === 'shipped_changed_since') {
      this.toolbar.append(h('button', { type: 'button', onclick: () => void this.acknowledge() }, 'Acknowledge shipped version'));
    }
    if (canRebase(d.state)) {
      this.toolbar.append(h('button', { type: 'button', onclick: () => void this.rebase() }, 'Preview rebase'));
    }
    if (editor && d.state === 'diverged') {
      this.toolbar.append(h('button', { type: 'button', onclick: () => void this.diverged() }, 'Settle with the team library'));
    }
    if (editor && d.state === 'custom') {
      this.toolbar.append(h('button', { type: 'button', class: 'danger', onclick: () => this.remove() }, 'Delete'));
    }
    if (editor) this.toolbar.append(h('button', { type: 'button', onclick: () => duplicateForm(this.notices, this.name) }, 'Duplicate as new template'));
    this.toolbar.append(this.saveHint);
  }

  private renderSave(st: EditorStatus): void {
    const reason =
      st === 'clean' ? 'No changes to save.' : st === 'checking' ? 'Checking…' : st === 'invalid' ? 'Fix the errors before saving.' : st === 'unchecked' ? 'Not checked; the service validates on save.' : 'Valid.';
    this.saveButton.disabled = st === 'clean' || st === 'checking' || st === 'invalid';
    this.revertButton.disabled = st === 'clean';
    // every key's check sets the status, mostly to what it was: the same words are not written again, so the toolbar is not laid out again
    if (this.saveHint.textContent !== reason) this.saveHint.textContent = reason;
    this.saveHint.dataset.status = st;
  }

  private renderTabs(): void {
    clear(this.tabs);
    const base = `#/templates/${this.name}`;
    const items: [Tab, string, string][] = [
      ['source', 'Source', base],
      ['card', 'Card', `${base}/card`],
      ['diff', 'Diff', `${base}/diff`],
      ['launch', 'Launch preview', `${base}/launch`],
      ['history', 'History', `${base}/history`],
    ];
    for (const [t, label, href] of items) {
      this.tabs.append(h('a', { href, 'aria-current': t === this.tab ? 'page' : null }, label));
    }
  }

  private renderCard(): void {
    clear(this.panels.card);
    const card = this.editor.dirty && this.draftCard ? this.draftCard : this.detail.card;
    this.panels.card.append(
      cardView(card, {
        draft: card !== this.detail.card,
        goToLine: (line) => {
          location.hash = `#/templates/${this.name}`;
          queueMicrotask(() => this.editor.focusAt(line));
        },
      }),
    );
  }

  /** The launch form, built once per saved version: the preview is of the saved template, pinned by its ETag. */
  private renderLaunch(): void {
    if (this.launchFor === this.etag && this.panels.launch.firstChild) return;
    this.launchFor = this.etag;
    fillLaunchPanel(this.panels.launch, { name: this.name, card: this.detail.card, etag: this.etag });
  }

  /** The versions, a diff of any against the saved text, restore (history-view.ts); a restore is one of this page's writes. */
  private renderHistory(): Promise<void> {
    return fillHistoryPanel(this.panels.history, {
      kind: 'template',
      name: this.name,
      etag: this.etag,
      dirty: this.editor.dirty,
      write: (method, path, opts) => this.write(method, path, opts),
      restored: (message) => this.refresh(message),
      compares: this.compares,
    });
  }

  private async renderDiff(): Promise<void> {
    await fillDiffPanel(this.panels.diff, {
      name: this.name,
      detail: this.detail,
      dirty: this.editor.dirty,
      against: this.diffAgainst,
      templates: this.templates,
      onAgainst: (v) => {
        this.diffAgainst = v;
        void this.renderDiff();
      },
      compares: this.compares,
    });
  }

  private revert(): void {
    this.editor.setText(this.detail.source, { problems: this.detail.problems });
    clear(this.notices);
  }

  private async save(text = this.editor.text, etag = this.etag): Promise<void> {
    this.saveButton.disabled = true;
    const banner = this.proposal ? [...this.notices.childNodes] : [];
    clear(this.notices);
    try {
      const note = this.noteInput.value.trim();
      if (this.proposal) {
        // the proposal's save, with this text: it decides the proposal (docs/api.md, Proposals)
        const p = this.proposal;
        await this.write<ProposalAnswer>('POST', `/proposals/${enc(p.id)}/save`, { body: { source: text }, ...(etag ? { ifMatch: etag } : { ifNoneMatch: '*' as const }) }, (b) => b.etag);
        this.proposal = null;
        await this.refresh(`Saved the proposal ${p.name} to the library; it is decided.`);
        return;
      }
      await this.write('PUT', `/templates/${enc(this.name)}`, { body: note ? { source: text, note } : { source: text }, ifMatch: etag });
      this.noteInput.value = '';
      await this.refresh('Saved.');
    } catch (e) {
      this.notices.append(...banner);
      if (e instanceof ApiError && e.status === 412) void this.met('refused');
      else if (e instanceof ApiError && e.status === 422) {
        this.editor.showProblems(e.problems);
        this.notice('error', 'Not saved: the service found errors; they are listed beside the source.');
      } else this.notice('error', `Not saved: ${errorText(e)}`);
      this.renderSave(this.editor.status);
    }
  }

  /**
   * This tab's edits met a version saved elsewhere (a 412, or an event while
   * edited): the head follows the service's state, the text stays, and the
   * choices are the merge, reload, or saving what the editor holds then.
   */
  private async met(kind: 'refused' | 'elsewhere'): Promise<void> {
    let body: TemplateAnswer;
    let etag: string | null;
    try {
      ({ body, etag } = await call<TemplateAnswer>('GET', `/templates/${enc(this.name)}`));
    } catch (e) {
      this.failed(kind === 'refused' ? 'Not saved' : 'Changed elsewhere', e);
      return;
    }
    if (kind === 'elsewhere' && etag === this.etag) return;
    this.theirs = { detail: body, etag };
    showState(this.head, body.state);
    clear(this.notices);
    unsay(this.toolbar);
    this.notices.append(
      conflictBox(kind, body, {
        reload: () => void this.refresh('Reloaded the saved version.').then(() => this.settled()),
        dirty: () => this.dirty,
        merge: () => this.mergeTheirs(),
        overwrite: () => void this.save(this.editor.text, this.theirs?.etag ?? etag),
      }),
    );
  }

  /**
   * The three-way merge of a conflict: base the version this tab loaded,
   * theirs the one saved elsewhere, mine the editor's text now, settled in
   * the rebase view's choices. "Use this" makes theirs the version edited
   * against (its ETag goes with the next Save) and puts the result in the
   * editor, unsaved.
   */
  private mergeTheirs(): void {
    const theirs = this.theirs;
    if (!theirs) return;
    const mine = this.editor.text;
    const back = [...this.notices.childNodes];
    const panel = mergeChoices({
      name: this.name,
      validator: this.validator,
      compares: this.compares,
      parts: threeWayParts(mine, this.detail.source, theirs.detail.source),
      mine,
      region: 'Merge with the saved version',
      heading: 'Your text merged with the version saved elsewhere',
      mineLabel: 'your text',
      theirs: { caption: 'Saved elsewhere', take: 'Take theirs', base: 'The lines both started from (the version this tab loaded)' },
      use: (merged) => {
        this.adopt(theirs.detail, theirs.etag);
        this.editor.setText(theirs.detail.source, { problems: theirs.detail.problems });
        this.editor.setText(merged);
        clear(this.notices);
        this.render();
        say('Merged text loaded into the editor, unsaved; check it, then save.', this.toolbar, 'info');
        this.editor.view.focus();
      },
      close: () => {
        clear(this.notices);
        this.notices.append(...back);
      },
    });
    panel.dataset.merge = 'saved';
    clear(this.notices);
    this.notices.append(panel);
  }

  private reset(): void {
    confirmInline(
      this.notices,
      `Reset ${this.name}? Your copy is removed and the shipped template loads.`,
      'Yes, reset',
      async () => {
        try {
          await this.write('POST', '/settings/template-reset', { body: { name: this.name }, ifMatch: this.etag });
          await this.refresh('Reset to shipped.');
        } catch (e) {
          this.failed('Not reset', e);
        }
      },
    );
  }

  private async acknowledge(): Promise<void> {
    try {
      await this.write('POST', '/settings/template-acknowledge', { body: { name: this.name }, ifMatch: this.etag });
      await this.refresh('Acknowledged today’s shipped version; your copy is kept.');
    } catch (e) {
      this.failed('Not acknowledged', e);
    }
  }

  /** The rebase preview, opened by a link (`#/templates/<name>/rebase`); nothing when this copy has nothing to rebase onto. */
  openRebase(): Promise<void> {
    // the address goes back to the template's own (no hashchange), so the same link opens it again
    history.replaceState(null, '', `#/templates/${enc(this.name)}`);
    return canRebase(this.detail.state) ? this.rebase() : Promise.resolve();
  }

  private async rebase(): Promise<void> {
    clear(this.notices);
    try {
      this.notices.append(
        await rebasePreview(this.name, this.validator, this.compares, {
          use: (merged) => {
            this.editor.setText(merged);
            clear(this.notices);
            location.hash = `#/templates/${this.name}`;
            say('Merged text loaded into the editor; check it, then save.', this.toolbar, 'info');
          },
          close: () => clear(this.notices),
        }),
      );
    } catch (e) {
      this.failed('No rebase', e);
    }
  }

  /** The diverged state's actions (sync-diverged.ts): compare with the team's version, rebase onto it, keep mine. */
  private async diverged(): Promise<void> {
    clear(this.notices);
    try {
      this.notices.append(
        await divergedPanel(this.name, this.detail.source, {
          compares: this.compares,
          use: (merged) => {
            this.editor.setText(merged);
            clear(this.notices);
            say('Merged text loaded into the editor; check it, then save.', this.toolbar, 'info');
          },
          keep: async () => {
            try {
              await this.write('POST', `/sync/templates/${enc(this.name)}/keep`, { body: {}, ifMatch: this.etag });
              clear(this.notices);
              if (this.incoming) {
                // no copy here: keeping none refused the teammate's version, and its removal is published
                this.gone = true;
                say(`Refused the team's ${this.name}; its removal is published.`);
                location.hash = '#/';
                return;
              }
              await this.refresh('Kept your copy.');
            } catch (e) {
              this.failed('Not kept', e);
            }
          },
          close: () => clear(this.notices),
        }),
      );
    } catch (e) {
      this.failed('No team version', e);
    }
  }

  private remove(): void {
    confirmInline(this.notices, `Delete ${this.name}? The file is removed from the library.`, 'Yes, delete', async () => {
      try {
        await this.write('DELETE', `/templates/${enc(this.name)}`, { ifMatch: this.etag });
        say(`Deleted ${this.name}.`);
        this.gone = true; // nothing left to save: leaving need not ask
        location.hash = '#/';
      } catch (e) {
        this.failed('Not deleted', e);
      }
    });
  }

  private failed(what: string, e: unknown): void {
    if (e instanceof ApiError && e.status === 412) {
      void this.followState();
      this.notice('error', `${what}: the template changed elsewhere. Reload to see it.`);
      this.notices.append(h('button', { type: 'button', onclick: () => void this.refresh('Reloaded.').then(() => this.settled()) }, 'Reload'));
    } else this.notice('error', `${what}: ${errorText(e)}`);
  }

  /**
   * A conflict answered by Reload: its box goes, and with it the button that
   * had the focus, so the focus moves to the result said by the toolbar.
   */
  private settled(): void {
    clear(this.notices);
    if (focusLost()) (this.toolbar.nextElementSibling as HTMLElement | null)?.focus();
  }

  /** After a 412: the badge shows the state the service has now; the text, the draft and the ETag stay until Reload. */
  private async followState(): Promise<void> {
    try {
      showState(this.head, (await call<TemplateAnswer>('GET', `/templates/${enc(this.name)}`)).body.state);
    } catch {
      // the conflict box already offers Reload
    }
  }

  /** The page's one message by the toolbar (ui.ts say): a notice replaces what was said before it. */
  private notice(kind: SayKind, text: string): void {
    clear(this.notices);
    say(text, this.toolbar, kind);
  }
}

