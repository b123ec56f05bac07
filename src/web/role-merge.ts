import type { EditorView } from '@codemirror/view';
import { clear, h } from './dom.js';
import { threeWayParts } from './merge-three.js';
import { type Conflict, conflictsOf, freshResolutions, type Resolution, resolve, unresolved } from './merge-resolve.js';
import { conflictFieldset } from './merge-conflict.js';
import { textEditor } from './role-editors.js';
import type { MergePart } from '../schema/templates.js';

/**
 * The role page's three-way merge of a conflict (roles.ts): each of the
 * role's files (role.md, kit.json) merged line by line, base the version the
 * tab loaded, theirs the one saved elsewhere, mine what the editors hold
 * (merge-three.ts, as the template page's merge), and each conflict offered
 * as a choice in its place (keep mine, take theirs, edit both), in the
 * classes of the template page's merge view (merge-rebase.ts). "Use this"
 * opens once every conflict has a choice; the results go into the editors,
 * unsaved, where the role check runs on them as on typing.
 */

export interface RoleMergeFile {
  /** the file's name, `role.md` or `kit.json` */
  file: string;
  mine: string;
  base: string;
  theirs: string;
}

export interface RoleMergeHandlers {
  /** the merged text of each file, in the order given */
  use: (merged: string[]) => void;
  close: () => void;
}


export function roleMerge(role: string, files: readonly RoleMergeFile[], on: RoleMergeHandlers): HTMLElement {
  const merges = files.map((f) => {
    const parts = threeWayParts(f.mine, f.base, f.theirs);
    return { file: f.file, parts, conflicts: conflictsOf(parts), res: freshResolutions(parts) };
  });
  const n = merges.reduce((k, m) => k + m.conflicts.length, 0);
  const editors: EditorView[] = [];
  const dispose = () => {
    for (const e of editors) e.destroy();
  };
  const status = h('p', { class: 'merge-status', role: 'status' });
  const results = h('div', { class: 'merge-result' });
  const useButton = h('button', { type: 'button', class: 'primary', disabled: n > 0 }, 'Use this');
  const heading = h('h3', { tabindex: -1 }, `Your edits to ${role} merged with the version saved elsewhere`);

  const update = () => {
    const merged = merges.map((m) => resolve(m.parts, m.res));
    clear(results);
    if (merged.some((t) => t === null)) {
      const left = merges.reduce((k, m) => k + unresolved(m.res), 0);
      status.textContent = `Choose for ${left} more conflict${left === 1 ? '' : 's'}; the result shows when each has a choice.`;
      useButton.disabled = true;
      return;
    }
    status.textContent = 'Every conflict has a choice. The role is checked in the editors once you use the result.';
    useButton.disabled = false;
    for (const [i, m] of merges.entries()) {
      const text = merged[i]!;
      if (text === files[i]!.mine) continue;
      results.append(h('details', {}, h('summary', {}, `The result: ${m.file}`), h('pre', { class: 'prose' }, text || '(empty)')));
    }
  };

  const section = h(
    'section',
    { class: 'callout rebase', 'aria-label': 'Merge with the saved version', 'data-conflicts': n, 'data-merge': 'saved' },
    heading,
    h(
      'p',
      {},
      n === 0 ? 'No conflicts.' : `${n} conflict${n === 1 ? '' : 's'}: both sides changed the same lines. Choose for each how to settle it.`,
      ' Nothing is written until you save.',
    ),
  );
  if (n > 0) {
    let k = 0;
    const items: HTMLElement[] = [];
    for (const m of merges) {
      for (const [i, c] of m.conflicts.entries()) {
        items.push(h('li', {}, conflictChoice(m.file, c, m.parts, i, ++k, n, m.res[i]!, update, editors)));
      }
    }
    section.append(h('ol', { class: 'merge-conflicts' }, items));
  }
  section.append(
    results,
    status,
    h('p', { class: 'actions' }, useButton, h('button', { type: 'button', onclick: () => { dispose(); on.close(); } }, 'Close')),
  );
  useButton.addEventListener('click', () => {
    const merged = merges.map((m) => resolve(m.parts, m.res));
    if (merged.some((t) => t === null)) return;
    dispose();
    on.use(merged as string[]);
  });
  update();
  // the merge opens below the toolbar; move focus to it once it is on the page
  setTimeout(() => {
    if (heading.isConnected) heading.focus();
  }, 0);
  return section;
}

/** One conflict in one file (merge-conflict.ts), its "Edit both" a plain text editor. */
function conflictChoice(
  file: string,
  c: Conflict,
  parts: MergePart[],
  i: number,
  k: number,
  n: number,
  r: Resolution,
  changed: () => void,
  editors: EditorView[],
): HTMLElement {
  return conflictFieldset({
    conflict: c,
    parts,
    index: i,
    resolution: r,
    group: `role-conflict-${k}`,
    legend: `Conflict ${k} of ${n}, in ${file}`,
    editLabel: `Your lines for conflict ${k}`,
    attrs: { 'data-conflict': k, 'data-file': file },
    theirs: { caption: 'Saved elsewhere', take: 'Take theirs', base: 'The lines both started from (the version this tab loaded)' },
    editors,
    changed,
    editor: (parent, doc, label, onChange) => {
      const view: EditorView = textEditor(parent, { doc, label, prose: file === 'role.md', onChange: () => onChange(view.state.doc.toString()) });
      return view;
    },
  });
}
