import { ApiError, call } from './api.js';
import { clear, h } from './dom.js';
import { errorCount, lineCount, marksByLine, offsetOf, position, sortProblems } from './format.js';
import type { Card } from '../schema/card.js';
import type { Problem } from '../schema/errors.js';

/**
 * The source editor: a textarea with a line gutter that marks problem lines,
 * and the list of problems (code, line:col, message; a click moves the cursor
 * there). While you type it asks the service for a card (POST …/propose,
 * debounced) so the problems are the validator's own, never a guess.
 */
export const DEBOUNCE_MS = 300;

export type EditorStatus = 'clean' | 'checking' | 'valid' | 'invalid' | 'unchecked';

export interface EditorOptions {
  name: string;
  source: string;
  problems: Problem[];
  readOnly: boolean;
  /** a fresh card for the text as it stands, or null when the text is back to the saved source */
  onCard?: (card: Card | null) => void;
  /** called whenever the status changes, so the page can enable Save */
  onStatus?: (status: EditorStatus) => void;
}

export class Editor {
  readonly el: HTMLElement;
  readonly textarea: HTMLTextAreaElement;
  private readonly gutter: HTMLElement;
  private readonly list: HTMLElement;
  private readonly summary: HTMLElement;
  private saved: string;
  private problems: Problem[];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private seq = 0;
  status: EditorStatus = 'clean';

  constructor(private readonly opts: EditorOptions) {
    this.saved = opts.source;
    this.problems = opts.problems;
    this.gutter = h('div', { class: 'gutter', 'aria-hidden': 'true' });
    this.textarea = h('textarea', {
      class: 'source',
      spellcheck: 'false',
      wrap: 'off',
      autocapitalize: 'off',
      autocomplete: 'off',
      'aria-label': `Source of ${opts.name}`,
      'aria-describedby': 'problem-summary',
      readonly: opts.readOnly,
    });
    this.textarea.value = opts.source;
    this.textarea.addEventListener('scroll', () => {
      this.gutter.scrollTop = this.textarea.scrollTop;
    });
    this.textarea.addEventListener('input', () => this.changed());
    this.textarea.addEventListener('keydown', (ev) => this.tab(ev));
    this.summary = h('p', { id: 'problem-summary', class: 'problem-summary', role: 'status' });
    this.list = h('ul', { class: 'problems', 'aria-label': 'Problems' });
    this.el = h(
      'div',
      { class: 'editor' },
      h('div', { class: 'code' }, this.gutter, this.textarea),
      h('section', { class: 'problem-pane', 'aria-label': 'Problems in the source' }, this.summary, this.list),
    );
    this.render();
  }

  get text(): string {
    return this.textarea.value;
  }

  get dirty(): boolean {
    return this.textarea.value !== this.saved;
  }

  get errors(): number {
    return errorCount(this.problems);
  }

  /** Replaces the text (reload, rebase "use this") and checks it. */
  setText(text: string, asSaved?: { problems: Problem[] }): void {
    this.textarea.value = text;
    if (asSaved) {
      this.saved = text;
      this.problems = asSaved.problems;
      this.setStatus('clean');
      this.render();
      this.opts.onCard?.(null);
    } else {
      this.changed();
    }
  }

  /** Problems from elsewhere (a 422 on save) replace the list until the next edit. */
  showProblems(problems: Problem[]): void {
    this.problems = problems;
    this.setStatus(errorCount(problems) > 0 ? 'invalid' : 'valid');
    this.render();
  }

  /** Puts the cursor at a problem's place and scrolls it into view. */
  focusAt(line: number, column = 1): void {
    const ta = this.textarea;
    const at = offsetOf(ta.value, line, column);
    ta.focus();
    ta.setSelectionRange(at, at);
    const lh = Number.parseFloat(getComputedStyle(ta).lineHeight) || 20;
    ta.scrollTop = Math.max(0, (line - 1) * lh - ta.clientHeight / 3);
    this.gutter.scrollTop = ta.scrollTop;
  }

  private changed(): void {
    this.renderGutter();
    clearTimeout(this.timer);
    if (!this.dirty) {
      this.seq++;
      this.setStatus('clean');
      this.opts.onCard?.(null);
      return;
    }
    this.setStatus('checking');
    this.timer = setTimeout(() => void this.check(), DEBOUNCE_MS);
  }

  private async check(): Promise<void> {
    const mine = ++this.seq;
    const source = this.textarea.value;
    try {
      const { body } = await call<Card>('POST', '/templates/propose', {
        // No purpose argument: the card then reads the header's own, so nothing is flagged as differing.
        body: { name: this.opts.name, source },
      });
      if (mine !== this.seq) return; // a later keystroke owns the result
      this.problems = body.problems ?? [];
      this.setStatus(errorCount(this.problems) > 0 ? 'invalid' : 'valid');
      this.render();
      this.opts.onCard?.(body);
    } catch (e) {
      if (mine !== this.seq) return;
      // A 413 (over the body cap) or a 422 still says what is wrong; anything else leaves the text unchecked.
      if (e instanceof ApiError && e.problems.length) {
        this.problems = e.problems;
        this.setStatus('invalid');
      } else {
        this.problems = [];
        this.setStatus('unchecked');
        this.summary.textContent = `Could not check the source: ${e instanceof Error ? e.message : String(e)}`;
        clear(this.list);
        return;
      }
      this.render();
    }
  }

  private setStatus(status: EditorStatus): void {
    this.status = status;
    this.el.dataset.status = status;
    this.opts.onStatus?.(status);
  }

  private render(): void {
    this.renderGutter();
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
              'aria-label': `${p.severity} ${p.code} at line ${at}: ${p.message}`,
              onclick: () => (p.line != null ? this.focusAt(p.line, p.column ?? 1) : this.textarea.focus()),
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

  private renderGutter(): void {
    const marks = marksByLine(this.problems);
    const n = lineCount(this.textarea.value);
    const frag = document.createDocumentFragment();
    for (let i = 1; i <= n; i++) {
      const mark = marks.get(i);
      frag.append(h('div', { class: mark ? `ln ${mark}` : 'ln', 'data-line': i }, String(i)));
    }
    clear(this.gutter);
    this.gutter.append(frag);
    this.gutter.scrollTop = this.textarea.scrollTop;
  }

  /** Tab indents two spaces (YAML has no tabs); Escape then Tab leaves the editor, so the keyboard is never trapped. */
  private escaped = false;
  private tab(ev: KeyboardEvent): void {
    if (ev.key === 'Escape') {
      this.escaped = true;
      return;
    }
    if (ev.key !== 'Tab' || ev.shiftKey || this.escaped || this.textarea.readOnly) {
      this.escaped = false;
      return;
    }
    ev.preventDefault();
    const ta = this.textarea;
    ta.setRangeText('  ', ta.selectionStart, ta.selectionEnd, 'end');
    this.changed();
  }
}
