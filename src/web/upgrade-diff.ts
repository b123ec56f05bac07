import { diffComm } from 'node-diff3';
import { h } from './dom.js';

/**
 * A line diff drawn as text (removed, added, and a few lines of context
 * around each change), for the Upgrade view. Made in the page with the
 * merge's own line diff (node-diff3) rather than the Diff tab's merge view,
 * so the view does not wait for CodeMirror. Every line is set as text.
 */

/** Lines of context kept either side of a change; longer unchanged runs fold to a `⋯ n unchanged lines` line. */
const CONTEXT = 3;

type Run = { common: string[] } | { buffer1: string[]; buffer2: string[] };

export interface DiffLine {
  kind: 'same' | 'del' | 'add' | 'fold';
  text: string;
}

const lines = (t: string): string[] => (t === '' ? [] : t.replace(/\n$/, '').split('\n'));

/** The lines of a diff from `before` to `after`, unchanged runs folded; empty when they are the same. Pure, so it is tested without a browser. */
export function diffLines(before: string, after: string): DiffLine[] {
  if (before === after) return [];
  const runs = diffComm(lines(before), lines(after)) as unknown as Run[];
  const out: DiffLine[] = [];
  runs.forEach((r, i) => {
    if ('common' in r) {
      const c = r.common;
      const head = i === 0 ? 0 : CONTEXT;
      const tail = i === runs.length - 1 ? 0 : CONTEXT;
      if (c.length <= head + tail + 1) {
        for (const text of c) out.push({ kind: 'same', text });
        return;
      }
      for (const text of c.slice(0, head)) out.push({ kind: 'same', text });
      out.push({ kind: 'fold', text: `⋯ ${c.length - head - tail} unchanged lines` });
      for (const text of c.slice(c.length - tail)) out.push({ kind: 'same', text });
      return;
    }
    for (const text of r.buffer1) out.push({ kind: 'del', text });
    for (const text of r.buffer2) out.push({ kind: 'add', text });
  });
  return out;
}

/** The diff as a focusable text block (the Diff tab's `unified` classes), or a note when the two are the same. */
export function lineDiffView(before: string, after: string, label: string): HTMLElement {
  const d = diffLines(before, after);
  if (!d.length) return h('p', { class: 'note' }, 'No change.');
  const pre = h('pre', { class: 'unified upgrade-diff', 'aria-label': label, tabindex: 0 });
  const mark = { same: ' ', del: '-', add: '+', fold: '' } as const;
  const cls = { same: 'l', del: 'l del', add: 'l add', fold: 'l hunk' } as const;
  for (const l of d) pre.append(h('span', { class: cls[l.kind] }, mark[l.kind] + l.text), '\n');
  return pre;
}
