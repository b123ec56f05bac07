/**
 * The library group's list and memory rows alone (bench/library.ts), without
 * its saves: `npm run bench -- list`. Not part of a whole run, which has
 * these rows in the library group.
 */
import { scale, warmAndCold } from './library.js';
import { makeOperatorRoot } from './operator-root.js';
import type { BenchRow } from './table.js';

export async function bench(): Promise<BenchRow[]> {
  const op = await makeOperatorRoot(1_000);
  try {
    return [...(await warmAndCold(op)), ...(await scale())];
  } finally {
    await op.remove();
  }
}
