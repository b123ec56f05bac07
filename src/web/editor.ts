import { setDiagnostics } from '@codemirror/lint';
import { EditorSelection, EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { ApiError, call } from './api.js';
import { clear, h } from './dom.js';
import type { LibraryNames } from './editor-complete.js';
import { showsExactly, toDiagnostics } from './editor-lint.js';
import { afterPaint } from './editor-paint.js';
import { editorExtensions } from './editor-setup.js';
import { errorCount, offsetOf, position, sameProblems, sortProblems } from './format.js';
import type { PageValidator } from './validator.js';
import type { Card } from '../schema/card.js';
import type { Problem } from '../schema/errors.js';

/**
 * The source editor: CodeMirror with squiggles and gutter marks at each
 * problem, and the list of problems (code, line:col, message; a click moves
 * the cursor there). Problems come from the page's copy of the validator
 * (validator.ts) on every change, with no round trip, checked once the
 * key's frame is painted (editor-paint.ts), so typing never waits for the
 * check; the server still validates each save. The card preview asks the
 * service (POST …/propose, debounced), since the card is not the
 * validator's to draw.
 */
export const DEBOUNCE_MS = 300;

export type EditorStatus = 'clean' | 'checking' | 'valid' | 'invalid' | 'unchecked';

export interface EditorOptions {
  name: string;
  source: string;
  problems: Problem[];
  readOnly: boolean;
  /** the page's validator (main.ts makes it): checks, warm-up, and the names completion offers */
  validator: PageValidator;
  /** a fresh card for the text as it stands, or null when the text is back to the saved source */
  onCard?: (card: Card | null) => void;
  /** called whenever the status changes, so the page can enable Save */
  onStatus?: (status: EditorStatus) => void;
  /** called when the text starts or stops differing from the saved source (the unsaved-changes dot) */
  onDirty?: (dirty: boolean) => void;
  /** called on every change of the text (a message about the text before it is out of date) */
  onEdit?: () => void;
}

export class Editor {
  readonly el: HTMLElement;
  readonly view: EditorView;
  private readonly list: HTMLElement;
  private readonly summary: HTMLElement;
  private saved: string;
  private problems: Problem[];
  /** the service's problems for the saved source, shown again when the text is back to it */
  private savedProblems: Problem[];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** the latest check asked for; a result for an older one is dropped */
  private seq = 0;
  private cardSeq = 0;
  private checking: Promise<void> = Promise.resolve();
  /** the check waiting for the paint of the key that asked for it; keys typed before it runs share it */
  private pending: Promise<void> | null = null;
  private wasDirty = false;
  /** the problems the list shows, so an unchanged result is not drawn again; null when the list says something else */
  private listed: Problem[] | null = null;
  status: EditorStatus = 'clean';

  constructor(private readonly opts: EditorOptions) {
    this.saved = lf(opts.source);
    this.problems = opts.problems;
    this.savedProblems = opts.problems;
    this.summary = h('p', { id: 'problem-summary', class: 'problem-summary', role: 'status' });
    this.list = h('ul', { class: 'problems', 'aria-label': 'Problems' });
    const code = h('div', { class: 'code' });
    // In a shadow root CodeMirror puts its styles in an adopted stylesheet, which the page's CSP
    // (style-src 'self', no inline <style>) allows; in the document it would need a <style> tag.
    const shadow = code.attachShadow({ mode: 'open' });
    this.view = new EditorView({
      parent: shadow,
      root: shadow,
      state: EditorState.create({
        doc: opts.source,
        extensions: editorExtensions({
          label: `Source of ${opts.name}`,
          readOnly: opts.readOnly,
          names: () => names(opts.validator),
          onChange: () => this.changed(),
        }),
      }),
    });
    const pane = h('section', { class: 'problem-pane', 'aria-label': 'Problems in the source' });
    // on a narrow window the pane sits above the editor and folds away (style.css); the button shows only there
    const fold = h('button', { type: 'button', class: 'problems-toggle', 'aria-expanded': 'true', onclick: () => {
      const folded = pane.toggleAttribute('data-folded');
      fold.setAttribute('aria-expanded', String(!folded));
      fold.textContent = folded ? 'Show the problems' : 'Hide the problems';
    } }, 'Hide the problems');
    pane.append(
      fold,
      this.summary,
      h('p', { class: 'editor-help' }, 'Tab indents; Escape then Tab leaves the editor. Ctrl/Cmd+S saves, Ctrl/Cmd+F searches.'),
      this.list,
    );
    this.el = h('div', { class: 'editor' }, code, pane);
    this.render();
    if (!opts.readOnly) opts.validator.warmUp(this.saved, opts.name);
  }

  get text(): string {
    return this.view.state.doc.toString();
  }

  get dirty(): boolean {
    // most edits change the length: no copy of the text is needed to tell
    return this.view.state.doc.length !== this.saved.length || this.text !== this.saved;
  }

  get errors(): number {
    return errorCount(this.problems);
  }

  /** The status once the check of the current text is done (Ctrl+S right after typing waits for it). */
  async settled(): Promise<EditorStatus> {
    let pending: Promise<void>;
    do {
      pending = this.checking;
      await pending;
    } while (pending !== this.checking);
    return this.status;
  }

  /** Replaces the text (reload, rebase "use this") and checks it; `asSaved` also makes it the saved source. */
  setText(text: string, asSaved?: { problems: Problem[] }): void {
    if (asSaved) {
      this.saved = lf(text);
      this.savedProblems = asSaved.problems;
    }
    const doc = this.view.state.doc;
    if (doc.toString() !== lf(text)) this.view.dispatch({ changes: { from: 0, to: doc.length, insert: text } });
    else this.changed();
  }

  /**
   * Checks the text again (the names it is checked against may have changed:
   * the page was out of contact with the service); `savedProblems` are the
   * service's for the saved text, read again.
   */
  recheck(savedProblems: Problem[]): void {
    this.savedProblems = savedProblems;
    if (!this.dirty) {
      this.problems = savedProblems;
      this.render();
      return;
    }
    const mine = ++this.seq;
    this.setStatus('checking');
    this.checking = this.check(mine, this.text);
  }

  /** Problems from elsewhere (a 422 on save) replace the list until the next edit. */
  showProblems(problems: Problem[]): void {
    this.problems = problems;
    this.setStatus(errorCount(problems) > 0 ? 'invalid' : 'valid');
    this.render();
  }

  /**
   * Unregisters the editor from the page: CodeMirror listens on the document
   * and the window (selectionchange, resize, scroll) until its view is
   * destroyed, so an editor left behind by every template opened kept
   * running on every later keystroke, and kept its text in memory. A late
   * setText after it (a save answered after leaving) changes no DOM.
   */
  destroy(): void {
    this.view.destroy();
  }

  /** Puts the cursor at a problem's place and scrolls it into view. */
  focusAt(line: number, column = 1): void {
    const at = offsetOf(this.text, line, column);
    this.view.dispatch({ selection: EditorSelection.cursor(at), effects: EditorView.scrollIntoView(at, { y: 'center' }) });
    this.view.focus();
  }

  private changed(): void {
    // no copy of the text in the key's own task when its length tells (at the 128 KiB cap a copy is milliseconds)
    const dirty = this.dirty;
    this.opts.onEdit?.();
    if (dirty !== this.wasDirty) {
      this.wasDirty = dirty;
      this.opts.onDirty?.(dirty);
    }
    clearTimeout(this.timer);
    const mine = ++this.seq;
    if (!dirty) {
      // back to the saved text: its problems are the service's, as answered with it
      this.cardSeq++;
      this.problems = this.savedProblems;
      this.checking = Promise.resolve();
      this.setStatus('clean');
      // changed() runs inside CodeMirror's update, which must not dispatch: draw just after it
      queueMicrotask(() => {
        if (mine === this.seq) this.render();
      });
      this.opts.onCard?.(null);
      return;
    }
    // the status (and Save, which follows it) changes in the check's task, not the key's: see checkAfterPaint
    this.checking = this.checkAfterPaint();
    if (this.opts.onCard) this.timer = setTimeout(() => void this.preview(), DEBOUNCE_MS);
  }

  /**
   * The check of the text as it stands once the key is painted. The key's
   * own task only updates CodeMirror (and the unsaved dot when it turns on
   * or off); the check runs (a few milliseconds for a shipped template,
   * more in a busy moment) and the status and the problems are drawn in
   * the task after the paint. A check on the main
   * thread ends in that same task (its awaits are microtasks), so the
   * status only turns `checking` when the check is still running a task
   * later (the Worker's): set and unset within one task it was never seen,
   * yet it laid the toolbar out again on every key (docs/performance.md,
   * the settings page). Keys typed before it runs are checked together.
   * Until then the status is the previous text's; Ctrl/Cmd+S waits for
   * this check (settled()), and the service checks every save anyway.
   */
  private checkAfterPaint(): Promise<void> {
    this.pending ??= afterPaint().then(() => {
      this.pending = null;
      // back to the saved text meanwhile: its problems are shown already
      if (!this.dirty) return;
      const mine = this.seq;
      let ended = false;
      const check = this.check(mine, this.text).finally(() => {
        ended = true;
      });
      setTimeout(() => {
        if (!ended && mine === this.seq) this.setStatus('checking');
      });
      return check;
    });
    return this.pending;
  }

  private async check(mine: number, source: string): Promise<void> {
    try {
      const problems = await this.opts.validator.checkSource(source, this.opts.name);
      if (mine !== this.seq) return; // a later keystroke owns the result
      this.problems = problems;
      this.setStatus(errorCount(problems) > 0 ? 'invalid' : 'valid');
      this.render();
    } catch (e) {
      if (mine !== this.seq) return;
      // the page's validator could not run (its worker failed to load): Save stays open, the service checks
      this.problems = [];
      this.setStatus('unchecked');
      this.render();
      this.listed = null;
      this.summary.textContent = `Could not check the source here: ${e instanceof Error ? e.message : String(e)}. The service checks it on save.`;
    }
  }

  /** The card of the text as typed, for the Card tab; its problems are the same validator's, so they are not shown twice. */
  private async preview(): Promise<void> {
    const mine = ++this.cardSeq;
    try {
      const { body } = await call<Card>('POST', '/templates/propose', {
        // No purpose argument: the card then reads the header's own, so nothing is flagged as differing.
        body: { name: this.opts.name, source: this.text },
      });
      if (mine === this.cardSeq) this.opts.onCard?.(body);
    } catch (e) {
      // a 413 or 422 has no card; the problems panel already says what is wrong
      if (!(e instanceof ApiError)) console.warn('card preview failed', e);
    }
  }

  private setStatus(status: EditorStatus): void {
    this.status = status;
    this.el.dataset.status = status;
    this.opts.onStatus?.(status);
  }

  /**
   * Draws the problems as squiggles and as the list. Most keystrokes leave
   * them as they were: then neither is drawn again, which saves a second
   * editor update and the list's DOM on each key (bench `page`, keystroke →
   * problems p95 at the 128 KiB cap: 153–166 ms redrawing, 108–109 not).
   */
  private render(): void {
    const diagnostics = toDiagnostics(this.view.state.doc, this.problems);
    if (!showsExactly(this.view.state, diagnostics)) this.view.dispatch(setDiagnostics(this.view.state, diagnostics));
    if (this.listed && sameProblems(this.listed, this.problems)) return;
    this.listed = this.problems;
    const sorted = sortProblems(this.problems);
    const errors = errorCount(sorted);
    const warnings = sorted.length - errors;
    this.summary.textContent =
      sorted.length === 0
        ? 'No problems.'
        : `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}.`;
    clear(this.list);
    for (const p of sorted) {
      const at = position(p);
      this.list.append(
        h(
          'li',
          { class: `problem ${p.severity}`, 'data-code': p.code, 'data-line': p.line ?? '' },
          h(
            'button',
            {
              type: 'button',
              // no aria-label: the spoken name is the text shown (severity, code, line:col, message)
              onclick: () => (p.line != null ? this.focusAt(p.line, p.column ?? 1) : this.view.focus()),
            },
            h('span', { class: 'sev' }, p.severity),
            h('code', { class: 'code-id' }, p.code),
            h('span', { class: 'at' }, at),
            h('span', { class: 'msg' }, p.message),
          ),
        ),
      );
    }
  }
}

/** CodeMirror keeps lines joined by LF (as the textarea did), so a CRLF file compares equal to its own text. */
function lf(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** Roles and templates for completion: the catalogue the page's validator checks against, fetched once for both. */
async function names(validator: PageValidator): Promise<LibraryNames> {
  const { roles, templates } = await validator.catalogueAnswer();
  return { roles, templates };
}
