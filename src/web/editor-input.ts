import type { Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';

/**
 * Typing over a selection, or deleting one, is applied by CodeMirror, not
 * left to the browser. Chromium's own editing, replacing a selection that
 * spans several highlighted lines, wraps what it keeps in elements with an
 * inline `style` (to carry the old look over), which the page's Content
 * Security Policy refuses, with a console error each time (docs/settings-page.md, Opening it).
 * The text comes out the same; only who writes it changes. Typing with no
 * selection, composition (IME) and paste go their usual way.
 */
const REPLACING: ReadonlySet<string> = new Set(['insertText', 'insertReplacementText', 'deleteContentBackward', 'deleteContentForward', 'deleteByCut', 'deleteWordBackward', 'deleteWordForward']);

export function ownSelectionEdits(): Extension {
  return EditorView.domEventHandlers({
    beforeinput(ev, view) {
      if (!REPLACING.has(ev.inputType) || view.state.readOnly || view.composing) return false;
      if (view.state.selection.ranges.every((r) => r.empty)) return false;
      const text = ev.inputType.startsWith('insert') ? (ev.data ?? ev.dataTransfer?.getData('text/plain') ?? null) : '';
      if (text === null) return false;
      ev.preventDefault();
      view.dispatch(view.state.replaceSelection(text), {
        userEvent: text === '' ? (ev.inputType === 'deleteByCut' ? 'delete.cut' : 'delete.selection') : 'input.type',
        scrollIntoView: true,
      });
      return true;
    },
  });
}
