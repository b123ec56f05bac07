import type { MergePart } from '../schema/templates.js';

/**
 * The rebase's merge (POST …/rebase `parts`) with a choice made for each
 * conflict: the result is the clean texts with the chosen side of each
 * conflict, joined, so it never holds conflict markers. Pure, so it is tested
 * without a browser.
 */

export type Choice = 'mine' | 'shipped' | 'edit';

export interface Resolution {
  /** null until the operator chooses */
  choice: Choice | null;
  /** the operator's own lines, used when the choice is `edit` */
  edit: string;
}

export type Conflict = Extract<MergePart, { kind: 'conflict' }>;

export function conflictsOf(parts: MergePart[]): Conflict[] {
  return parts.filter((p): p is Conflict => p.kind === 'conflict');
}

/** "Edit both" starts from your lines, then today's shipped lines, with no markers between. */
export function bothSides(c: Conflict): string {
  const mine = c.copy === '' || c.copy.endsWith('\n') ? c.copy : `${c.copy}\n`;
  return mine + c.theirs;
}

export function freshResolutions(parts: MergePart[]): Resolution[] {
  return conflictsOf(parts).map((c) => ({ choice: null, edit: bothSides(c) }));
}

/** How many conflicts still have no choice. */
export function unresolved(res: Resolution[]): number {
  return res.filter((r) => r.choice === null).length;
}

/** The text of one settled conflict; an edit gets a final newline when text follows it, so the next line stays its own. */
function settled(c: Conflict, r: Resolution, last: boolean): string {
  if (r.choice === 'mine') return c.copy;
  if (r.choice === 'shipped') return c.theirs;
  return last || r.edit === '' || r.edit.endsWith('\n') ? r.edit : `${r.edit}\n`;
}

/** The merged text, or null while any conflict has no choice. */
export function resolve(parts: MergePart[], res: Resolution[]): string | null {
  if (unresolved(res) > 0) return null;
  let i = 0;
  return parts
    .map((p, at) => {
      if (p.kind === 'clean') return p.text;
      const r = res[i++];
      if (!r) throw new Error('a conflict without its resolution');
      return settled(p, r, at === parts.length - 1);
    })
    .join('');
}

/** A few lines of the clean text on each side of conflict `n`, so a choice is made in its place. */
export function contextOf(parts: MergePart[], n: number, lines = 2): { before: string; after: string } {
  let seen = -1;
  const at = parts.findIndex((p) => p.kind === 'conflict' && ++seen === n);
  const prev = parts[at - 1];
  const next = parts[at + 1];
  const split = (t: string) => t.replace(/\n$/, '').split('\n');
  return {
    before: prev?.kind === 'clean' ? split(prev.text).slice(-lines).join('\n') : '',
    after: next?.kind === 'clean' ? split(next.text).slice(0, lines).join('\n') : '',
  };
}
