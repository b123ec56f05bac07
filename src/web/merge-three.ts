import { diff3Merge } from 'node-diff3';
import type { MergePart } from '../schema/templates.js';

/**
 * A three-way merge made in the page, in the rebase answer's shape (clean
 * runs and conflicts with their three sides), so the rebase view's choices
 * settle it: the text this tab edited (`mine`) and a version saved
 * elsewhere (`theirs`) over the version the tab loaded (`base`). The same
 * line merge as the service's rebase (node-diff3, false conflicts dropped).
 * Pure, so it is tested without a browser.
 */
export function threeWayParts(mine: string, base: string, theirs: string): MergePart[] {
  const lines = (t: string) => (t === '' ? [] : t.split(/(?<=\n)/));
  const parts: MergePart[] = [];
  for (const r of diff3Merge(lines(mine), lines(base), lines(theirs), { excludeFalseConflicts: true })) {
    if (r.ok) {
      const text = r.ok.join('');
      const last = parts[parts.length - 1];
      if (last?.kind === 'clean') last.text += text;
      else if (text !== '') parts.push({ kind: 'clean', text });
    } else if (r.conflict) {
      parts.push({ kind: 'conflict', copy: r.conflict.a.join(''), base: r.conflict.o.join(''), theirs: r.conflict.b.join('') });
    }
  }
  return parts;
}
