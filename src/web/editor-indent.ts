import { indentService } from '@codemirror/language';
import type { Extension } from '@codemirror/state';
import { type EditorView, keymap } from '@codemirror/view';

/**
 * YAML comfort for the template editor (@codemirror/lang-yaml has no
 * indentation rule): Enter after `key:` (or a block scalar's `>`, `|`)
 * indents one step more; in a block list, after `- name: x` the next line
 * lines up with `name`, after `- item` with the dash, so the next item is a
 * `- ` away; anywhere else the line keeps the one above's indentation. And
 * Escape always lets the next Tab leave the editor (CodeMirror's tab focus
 * mode), even when Escape also collapses a selection.
 */

const STEP = 2;

/** The indentation of a new line after `before` (the text left of the break on its line). */
export function yamlIndentAfter(before: string): number {
  // a comment says nothing about the structure
  const text = before.replace(/\s+#.*$/, '').replace(/\s+$/, '');
  const lead = /^ */.exec(text)![0].length;
  const item = /^( *)- +/.exec(text);
  // where the line's content starts: after `- ` in a list item
  const at = item ? item[0].length : lead;
  const rest = text.slice(at);
  if (/:$/.test(rest) || /:\s*[>|][-+]?\d*$/.test(rest)) return at + STEP;
  // `- name: x` opens a mapping in the item; `- { … }`, `- [ … ]` or `- word` is the item whole
  if (item) return /^[^\s'"{[][^:]*:\s/.test(rest) ? at : item[1]!.length;
  return lead;
}

export function yamlComfort(): Extension {
  return [
    indentService.of((cx, pos) => {
      const line = cx.lineAt(pos, -1);
      const before = line.text.slice(0, pos - line.from);
      // an empty line above: keep what it had, up to the cursor
      return before.trim() === '' ? before.length : yamlIndentAfter(before);
    }),
    escapeLeaves(),
  ];
}

/** Escape, then Tab within two seconds, leaves the editor: put before the default keymap, whose Escape collapses a selection and says it handled the key. */
export function escapeLeaves(): Extension {
  return keymap.of([
    {
      key: 'Escape',
      run: (view: EditorView) => {
        view.setTabFocusMode(2000);
        return false;
      },
    },
  ]);
}
