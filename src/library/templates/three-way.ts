/**
 * Three-way merge of an operator copy onto another version over their common
 * base (docs/api.md, rebase): today's shipped version over the shipped bytes
 * the copy was saved against, or a sync's remote version over the merge
 * base (docs/api.md, Sync). Uses
 * node-diff3 on lines; conflicts are written with git's diff3-style markers so
 * any editor that knows git conflicts highlights them. The same merge is also
 * answered as parts (merged text, then each conflict's three sides) so the page
 * can offer each conflict as a choice instead of showing markers.
 */
import { diff3Merge } from 'node-diff3';
import type { Catalogue } from '../../template/model.js';
import { validateTemplate } from '../../template/validate.js';

/** A run of lines that merged cleanly, or one conflict with its three sides; each side's lines joined as written. */
export type MergePart = { kind: 'clean'; text: string } | { kind: 'conflict'; copy: string; base: string; theirs: string };

export interface MergeOutcome {
  merged: string;
  /** number of conflict blocks in `merged` */
  conflicts: number;
  /** clean texts and conflicts in order: the clean texts with one side of each conflict, joined, are a merge without markers */
  parts: MergePart[];
}

/** Lines with their terminators, so joining them gives the text back byte for byte. */
function lines(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/);
}

function block(out: string[], marker: string, body: string[]): void {
  out.push(marker + '\n');
  for (const l of body) out.push(l);
  const last = out[out.length - 1];
  // A file's last line may lack its newline; the marker must still start a line.
  if (last !== undefined && !last.endsWith('\n')) out[out.length - 1] = last + '\n';
}

/** What the other side is: its conflict markers say so (`>>>>>>> remote`). */
export type Onto = 'shipped' | 'remote';

/** `theirs` is the version the copy goes onto (today's shipped, or the remote's); in `parts` its lines are `theirs` either way. */
export function threeWayMerge(copy: string, base: string, theirs: string, onto: Onto = 'shipped'): MergeOutcome {
  const regions = diff3Merge(lines(copy), lines(base), lines(theirs), { excludeFalseConflicts: true });
  const out: string[] = [];
  const parts: MergePart[] = [];
  let conflicts = 0;
  for (const r of regions) {
    if (r.ok) {
      out.push(...r.ok);
      const text = r.ok.join('');
      const last = parts[parts.length - 1];
      // diff3 can answer two clean regions in a row; one part reads better
      if (last?.kind === 'clean') last.text += text;
      else if (text !== '') parts.push({ kind: 'clean', text });
    } else if (r.conflict) {
      conflicts++;
      block(out, '<<<<<<< copy', r.conflict.a);
      block(out, '||||||| base', r.conflict.o);
      block(out, '=======', r.conflict.b);
      out.push(`>>>>>>> ${onto}\n`);
      parts.push({ kind: 'conflict', copy: r.conflict.a.join(''), base: r.conflict.o.join(''), theirs: r.conflict.b.join('') });
    }
  }
  return { merged: out.join(''), conflicts, parts };
}

/**
 * The rebase answer: the merge, and whether the merged text validates against
 * today's catalogue. One for rebasing onto shipped and onto a remote's version.
 */
export async function rebaseAnswer(library: { catalogue(): Promise<Catalogue> }, name: string, copy: string, base: string, theirs: string, onto: Onto = 'shipped') {
  const { merged, conflicts, parts } = threeWayMerge(copy, base, theirs, onto);
  const v = validateTemplate(merged, { name, catalogue: await library.catalogue() });
  return { merged, conflicts, parts, valid: v.valid, problems: v.problems };
}
