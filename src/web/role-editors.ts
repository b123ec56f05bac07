import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching } from '@codemirror/language';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { styleNonce } from './csp-nonce.js';
import { escapeLeaves } from './editor-indent.js';
import { ownSelectionEdits } from './editor-input.js';

/**
 * The role page's two text editors (roles.ts): `role.md` as prose (lines
 * wrap; plain text: a Markdown mode would bring HTML, CSS and JavaScript
 * modes with it, a quarter of the page's budget) and `kit.json` (bracket
 * matching, the kit check's problems as marks). Both keep CodeMirror's
 * history and search keys; Tab indents, and Escape then Tab leaves the
 * editor (CodeMirror's tab focus mode), so the keyboard is never trapped.
 */
export interface TextEditorOptions {
  doc: string;
  /** the text box's accessible name */
  label: string;
  prose: boolean;
  readOnly?: boolean;
  onChange: () => void;
}

const theme = EditorView.theme({
  '&': { border: '1px solid var(--line)', borderRadius: '6px', background: '#fbfcfd', color: 'var(--fg)' },
  '&.cm-focused': { outline: 'none', boxShadow: '0 0 0 2px #b9d3f2' },
  '.cm-scroller': { fontFamily: 'var(--mono)', fontSize: '13px', lineHeight: 'var(--code-lh)', overflow: 'auto', minHeight: '120px' },
  '.cm-gutters': { background: '#eef1f4', color: '#4a5560', borderRight: '1px solid var(--line)' },
  '.cm-activeLine': { background: '#f1f5fa' },
});

export function textEditor(parent: HTMLElement, o: TextEditorOptions): EditorView {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc: o.doc,
      extensions: [
        styleNonce(),
        lineNumbers(),
        history(),
        // the browser's own caret and selection, as in the template editor (editor-setup.ts says why)
        highlightActiveLine(),
        o.prose ? EditorView.lineWrapping : [bracketMatching(), lintGutter()],
        escapeLeaves(),
        ownSelectionEdits(),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorState.tabSize.of(2),
        EditorState.readOnly.of(o.readOnly ?? false),
        EditorView.contentAttributes.of({ 'aria-label': o.label, tabindex: '0', ...(o.readOnly ? { 'aria-readonly': 'true' } : {}) }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) o.onChange();
        }),
        theme,
      ],
    }),
  });
}

/** Replaces the whole text (a reload, a checkbox of the kit). */
export function replaceText(view: EditorView, text: string): void {
  if (view.state.doc.toString() !== text) view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

/** Marks: each at the text it is about, or the first line. */
export function showMarks(view: EditorView, marks: { from: number; to: number; severity: 'error' | 'warning'; message: string }[]): void {
  const len = view.state.doc.length;
  const diagnostics: Diagnostic[] = marks.map((m) => ({ ...m, from: Math.min(m.from, len), to: Math.min(Math.max(m.to, m.from), len) }));
  view.dispatch(setDiagnostics(view.state, diagnostics));
}
