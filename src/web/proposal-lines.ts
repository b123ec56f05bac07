import { diffComm } from 'node-diff3';

/** What a proposal's save would drop of the operator's work: pure (no DOM), so it is tested without a browser. */
const lines = (t: string): string[] => (t === '' ? [] : t.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n'));
type Run = { common: string[] } | { buffer1: string[]; buffer2: string[] };

/**
 * The lines of `current` that saving `proposed` removes and that are the
 * operator's: not in the shipped text (every line of a custom template is
 * theirs). Blank lines are not counted as work. Pure, tested without a browser.
 */
export function operatorLinesLost(current: string, proposed: string, shipped: string | null): string[] {
  const ship = new Set(shipped === null ? [] : lines(shipped));
  const runs = diffComm(lines(current), lines(proposed)) as unknown as Run[];
  return runs.flatMap((r) => ('buffer1' in r ? r.buffer1 : [])).filter((l) => l.trim() !== '' && !ship.has(l));
}
