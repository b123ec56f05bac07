import { yaml } from '@codemirror/lang-yaml';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { MergeView, unifiedMergeView } from '@codemirror/merge';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, lineNumbers } from '@codemirror/view';
import { styleNonce } from './csp-nonce.js';
import { h } from './dom.js';

/**
 * Two texts compared with @codemirror/merge, read-only: side by side on a wide
 * screen, one column (deleted lines shown inline above their replacement) on a
 * narrow one, switching when the window crosses the width. Lines wrap, so no
 * side scrolls sideways and the columns stay aligned line for line.
 */

/** below this width two columns of YAML are too narrow to read */
export const NARROW_QUERY = '(max-width: 760px)';

export interface CompareOptions {
  before: string;
  after: string;
  /** what each side is ("shipped quick-fix", "your text"): the column heads and the editors' accessible names */
  beforeLabel: string;
  afterLabel: string;
  /** fold runs of unchanged lines, leaving three around each change; default true */
  collapse?: boolean;
}

export interface Compare {
  readonly el: HTMLElement;
  /** the text on the after side now */
  readonly after: string;
  /** replaces the after side (a rebase choice changed the result); the diff follows */
  setAfter(text: string): void;
  destroy(): void;
}

/**
 * The compare views a template page made that are still alive, and whether
 * each was ever seen on the page; the page makes one and passes it to every
 * panel that compares. The panels that hold the views are cleared by code
 * that knows nothing of CodeMirror, so a view seen on the page and gone from
 * it since is destroyed the next time one is made (a view still being built
 * is not on the page yet, and is kept).
 */
export class CompareViews {
  private readonly live = new Map<Compare, { seen: boolean }>();

  sweep(): void {
    for (const [c, s] of this.live) {
      if (c.el.isConnected) s.seen = true;
      else if (s.seen) c.destroy();
    }
  }

  has(c: Compare): boolean {
    return this.live.has(c);
  }

  track(c: Compare): void {
    this.live.set(c, { seen: false });
  }

  forget(c: Compare): void {
    this.live.delete(c);
  }

  /**
   * Destroys the views inside `root` and those on no page at all. A
   * template page calls it when it is left: the sweep destroys only a view
   * seen on the page at an earlier sweep, and one shown and removed between
   * two makes was never seen. "No page at all" is safe because every maker
   * puts its view in its panel in the task that makes it, so no view still
   * being built waits off the page across an await.
   */
  destroyIn(root: Node): void {
    for (const c of [...this.live.keys()]) if (!c.el.isConnected || root.contains(c.el)) c.destroy();
  }
}

function sideExtensions(label: string): Extension {
  return [
    styleNonce(),
    lineNumbers(),
    yaml(),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    EditorView.lineWrapping,
    // read-only but focusable, so the keyboard can move through it and copy from it
    EditorState.readOnly.of(true),
    EditorView.contentAttributes.of({ 'aria-label': label, 'aria-readonly': 'true' }),
  ];
}

/** A compare view of `o`'s two texts, kept in `views` until it is destroyed. */
export function compareView(o: CompareOptions, views: CompareViews): Compare {
  views.sweep();
  const narrow = window.matchMedia(NARROW_QUERY);
  const host = h('div', { class: 'merge-host' });
  const el = h('div', { class: 'merge-compare' }, host);
  const collapse = o.collapse === false ? undefined : { margin: 3, minSize: 4 };
  let after = o.after;
  let side: MergeView | null = null;
  let unified: EditorView | null = null;
  let mode: 'side' | 'unified' | null = null;

  const build = () => {
    const want = narrow.matches ? 'unified' : 'side';
    if (want === mode) return;
    teardown();
    mode = want;
    el.dataset.mode = want;
    if (want === 'side') {
      host.append(
        h('div', { class: 'merge-heads', 'aria-hidden': 'true' }, h('span', {}, o.beforeLabel), h('span', {}, o.afterLabel)),
      );
      side = new MergeView({
        a: { doc: o.before, extensions: sideExtensions(o.beforeLabel) },
        b: { doc: after, extensions: sideExtensions(o.afterLabel) },
        parent: host,
        gutter: true,
        highlightChanges: true,
        ...(collapse ? { collapseUnchanged: collapse } : {}),
      });
    } else {
      host.append(h('p', { class: 'merge-heads-unified' }, `Lines of ${o.beforeLabel} shown struck through; the text is ${o.afterLabel}.`));
      unified = new EditorView({
        doc: after,
        parent: host,
        extensions: [
          sideExtensions(`${o.afterLabel}, with the lines of ${o.beforeLabel} it replaces`),
          unifiedMergeView({ original: o.before, mergeControls: false, gutter: true, ...(collapse ? { collapseUnchanged: collapse } : {}) }),
        ],
      });
    }
  };

  const teardown = () => {
    side?.destroy();
    unified?.destroy();
    side = null;
    unified = null;
    host.replaceChildren();
  };

  const onWidth = () => {
    views.sweep();
    if (views.has(api)) build();
  };

  const api: Compare = {
    el,
    get after() {
      return after;
    },
    setAfter(text: string) {
      if (text === after) return;
      after = text;
      const view = side?.b ?? unified;
      view?.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    destroy() {
      narrow.removeEventListener('change', onWidth);
      teardown();
      mode = null;
      views.forget(api);
    },
  };
  narrow.addEventListener('change', onWidth);
  views.track(api);
  build();
  return api;
}
