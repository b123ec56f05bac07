/**
 * The library group's save rows alone (bench/library.ts), without its list
 * and memory rows: `npm run bench -- saves`. Not part of a whole run, which
 * has these rows in the library group.
 */
import { saves } from './library.js';
import { makeOperatorRoot } from './operator-root.js';
import type { BenchRow } from './table.js';

export async function bench(): Promise<BenchRow[]> {
  const op = await makeOperatorRoot(1_000);
  try {
    return await saves(op);
  } finally {
    await op.remove();
  }
}
