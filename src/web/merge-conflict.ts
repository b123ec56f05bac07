/**
 * One conflict of a three-way merge as the page shows it — the rebase
 * preview, a 412's merge with the version saved elsewhere, a role's merge:
 * the lines around it, both sides, the base under a disclosure, and the
 * three choices. The editor for "Edit both" is the caller's (YAML for a
 * template, plain text for a role), made the first time it is chosen.
 */
import type { EditorView } from '@codemirror/view';
import type { MergePart } from '../schema/templates.js';
import { h } from './dom.js';
import { type Choice, type Conflict, contextOf, type Resolution } from './merge-resolve.js';

export interface ConflictView {
  conflict: Conflict;
  /** the merge's parts, for the lines around the conflict */
  parts: MergePart[];
  /** the conflict's place among the parts' conflicts */
  index: number;
  resolution: Resolution;
  /** the radio group's name, unique on the page */
  group: string;
  legend: string;
  /** the "Edit both" editor's accessible name */
  editLabel: string;
  /** attributes of the fieldset (`data-conflict`, …), which tests and styles read */
  attrs: Record<string, string | number>;
  /** how the other side is named: its caption, its choice, the base's summary */
  theirs: { caption: string; take: string; base: string };
  /** makes the "Edit both" editor in `host`, calling `onChange` with its text */
  editor: (host: HTMLElement, doc: string, label: string, onChange: (text: string) => void) => EditorView;
  /** every editor made, for the caller to destroy */
  editors: EditorView[];
  /** a choice or an edit changed the result */
  changed: () => void;
}

export function conflictFieldset(o: ConflictView): HTMLElement {
  const r = o.resolution;
  const ctx = contextOf(o.parts, o.index);
  const editHost = h('div', { class: 'merge-edit', hidden: true });
  let editor: EditorView | null = null;

  const choose = (choice: Choice) => {
    r.choice = choice;
    editHost.hidden = choice !== 'edit';
    if (choice === 'edit' && !editor) {
      editor = o.editor(editHost, r.edit, o.editLabel, (text) => {
        r.edit = text;
        o.changed();
      });
      o.editors.push(editor);
    }
    o.changed();
    if (choice === 'edit') editor?.focus();
  };

  const side = (cls: string, caption: string, text: string) =>
    h('figure', { class: `merge-side ${cls}` }, h('figcaption', {}, caption), h('pre', {}, text || '(no lines)'));
  const choices: [Choice, string][] = [
    ['mine', 'Keep mine'],
    ['shipped', o.theirs.take],
    ['edit', 'Edit both'],
  ];

  return h(
    'fieldset',
    { class: 'merge-conflict', ...o.attrs },
    h('legend', {}, o.legend),
    ctx.before ? h('pre', { class: 'merge-context', 'aria-hidden': 'true' }, ctx.before) : null,
    h('div', { class: 'merge-sides' }, side('mine', 'Yours', o.conflict.copy), side('shipped', o.theirs.caption, o.conflict.theirs)),
    ctx.after ? h('pre', { class: 'merge-context', 'aria-hidden': 'true' }, ctx.after) : null,
    h('details', {}, h('summary', {}, o.theirs.base), h('pre', {}, o.conflict.base || '(no lines)')),
    h(
      'p',
      { class: 'merge-choices' },
      choices.map(([value, label]) => h('label', {}, h('input', { type: 'radio', name: o.group, value, onchange: () => choose(value) }), ` ${label}`)),
    ),
    editHost,
  );
}
