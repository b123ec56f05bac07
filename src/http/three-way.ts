/**
 * Three-way merge of an operator copy onto today's shipped version over the
 * shipped bytes it was saved against (docs/api.md, rebase). Uses
 * node-diff3 on lines; conflicts are written with git's diff3-style markers so
 * any editor that knows git conflicts highlights them.
 */
import { diff3Merge } from 'node-diff3';

export interface MergeOutcome {
  merged: string;
  /** number of conflict blocks in `merged` */
  conflicts: number;
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

export function threeWayMerge(copy: string, base: string, shipped: string): MergeOutcome {
  const regions = diff3Merge(lines(copy), lines(base), lines(shipped), { excludeFalseConflicts: true });
  const out: string[] = [];
  let conflicts = 0;
  for (const r of regions) {
    if (r.ok) {
      out.push(...r.ok);
    } else if (r.conflict) {
      conflicts++;
      block(out, '<<<<<<< copy', r.conflict.a);
      block(out, '||||||| base', r.conflict.o);
      block(out, '=======', r.conflict.b);
      out.push('>>>>>>> shipped\n');
    }
  }
  return { merged: out.join(''), conflicts };
}
