/**
 * The CodeMirror extensions of the template editor: YAML highlighting, line
 * numbers, history, bracket matching, search, the lint gutter, completion and
 * hover from the format's catalogues, and a theme whose line numbers keep
 * 4.5:1 contrast. Enter indents as YAML wants it (editor-indent.ts). Tab
 * indents (YAML has no tabs); Escape then Tab leaves the editor, with or
 * without a selection, so the keyboard is never trapped (CodeMirror's tab
 * focus mode). The caret and the selection are the browser's own (see
 * editorExtensions).
 */
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { lintGutter } from '@codemirror/lint';
import { tags } from '@lezer/highlight';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { EditorState, type Extension } from '@codemirror/state';
import {
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { styleNonce } from './csp-nonce.js';
import { type LibraryNames, templateCompletion } from './editor-complete.js';
import { templateHover } from './editor-hover.js';
import { FactsReader } from './editor-facts.js';
import { yamlComfort } from './editor-indent.js';
import { ownSelectionEdits } from './editor-input.js';

export interface SetupOptions {
  /** the accessible name of the text box: `Source of <name>` */
  label: string;
  readOnly: boolean;
  names: () => Promise<LibraryNames>;
  onChange: () => void;
}

/**
 * Colours: line numbers #4a5560 on #eef1f4 (6.6:1) and the active line's
 * number on #dde6f0 (5.9:1), over the 4.5:1 that axe checks.
 */
const theme = EditorView.theme({
  '&': { height: '560px', border: '1px solid var(--line)', borderRadius: '6px', background: '#fbfcfd', color: 'var(--fg)' },
  '&.cm-focused': { outline: 'none', boxShadow: '0 0 0 2px #b9d3f2' },
  '.cm-scroller': { fontFamily: 'var(--mono)', fontSize: '13px', lineHeight: 'var(--code-lh)', overflow: 'auto' },
  '.cm-gutters': { background: '#eef1f4', color: '#4a5560', borderRight: '1px solid var(--line)' },
  '.cm-activeLineGutter': { background: '#dde6f0', color: '#1d2329' },
  '.cm-activeLine': { background: '#f1f5fa' },
  '.cm-tooltip': { fontFamily: 'system-ui, sans-serif', fontSize: '13px', maxWidth: '420px' },
  '.cm-template-hover': { padding: '4px 8px' },
  '.cm-template-hover p': { margin: '2px 0 0' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul > li': { padding: '2px 6px' },
  '.cm-completionDetail': { color: '#4a5560', fontStyle: 'normal', marginLeft: '8px' },
  // the selected option is white on blue (4.6:1); its detail follows, and the unfocused grey is darkened from #777
  '.cm-tooltip-autocomplete ul li[aria-selected] .cm-completionDetail': { color: 'inherit' },
  '.cm-tooltip-autocomplete-disabled ul li[aria-selected]': { background: '#5f6670' },
});

/**
 * YAML colours at 4.5:1 or more on the editor's background (CodeMirror's
 * default style has orange and red under it, which axe reports).
 */
const highlight = HighlightStyle.define([
  { tag: tags.definition(tags.propertyName), color: '#1f4fa0' },
  { tag: tags.string, color: '#a11' },
  { tag: tags.special(tags.string), color: '#6b3fa0' },
  { tag: tags.comment, color: '#6a5300', fontStyle: 'italic' },
  { tag: [tags.labelName, tags.typeName, tags.keyword], color: '#707' },
  { tag: tags.meta, color: '#404740' },
  { tag: tags.invalid, color: '#b3261e' },
]);

export function editorExtensions(o: SetupOptions): Extension[] {
  // this editor's own reading of its text, for completion and hover
  const facts = new FactsReader();
  return [
    styleNonce(),
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    // no drawSelection(): the browser's own caret and selection. CodeMirror's drawn cursor is
    // measured after each key's layout and restarts its blink animation, a second layout and a
    // style pass per key; without it a key paints as soon as bare CodeMirror's does (bench `page`,
    // docs/performance.md). Multiple selections, the one thing it draws that the browser cannot,
    // are off in this editor (EditorState.allowMultipleSelections is not set).
    indentOnInput(),
    syntaxHighlighting(highlight),
    bracketMatching(),
    closeBrackets(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    search({ top: true }),
    yaml(),
    lintGutter(),
    autocompletion({ override: [templateCompletion(o.names, facts)], icons: false }),
    templateHover(facts),
    // its Escape comes before the default keymap's, so a selection never keeps Tab in the editor
    yamlComfort(),
    ownSelectionEdits(),
    keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap, ...completionKeymap, indentWithTab]),
    EditorState.tabSize.of(2),
    EditorState.readOnly.of(o.readOnly),
    // tabindex: contenteditable is focusable anyway, but axe counts the scroller as keyboard-reachable only with it
    // no aria-describedby: the editor sits in a shadow root (editor.ts), where ids outside do not resolve;
    // the problem summary is a live status region, so changes are announced anyway
    // read-only stays focusable with a caret (reading, search, selection by keyboard); aria-readonly says it cannot be typed in
    EditorView.contentAttributes.of({ 'aria-label': o.label, tabindex: '0', ...(o.readOnly ? { 'aria-readonly': 'true' } : {}) }),
    EditorView.updateListener.of((u) => {
      if (u.docChanged) o.onChange();
    }),
    theme,
  ];
}
