import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { RACY_MS } from '../src/library/entry-cache.js';
import { fixture, tpl } from './library-helpers.js';

/**
 * The card's line diffs are kept keyed on both texts (src/library/template-read.ts):
 * a hand edit of either side, even one that keeps the size, gives the next
 * card a diff of the texts as they are now.
 */

const later = () => Date.now() + 10 * RACY_MS;
const withBase = (purpose: string) => tpl('mine', purpose).replace('  entry: work', '  base: alpha\n  entry: work');

test("a variant's card diff follows hand edits of the variant and of its base", async () => {
  const fx = await fixture();
  const dir = join(fx.root, 'templates');
  await mkdir(dir);
  await writeFile(join(dir, 'alpha.yaml'), tpl('alpha', 'base first'));
  await writeFile(join(dir, 'mine.yaml'), withBase('mine first'));
  const lib = await fx.open({ now: later });
  const unified = async () => (await lib.getTemplate('mine', { card: true }))!.card!.diff!.unified!;

  const first = await unified();
  expect(first).toContain('-  purpose: base first');
  expect(first).toContain('+  purpose: mine first');
  expect(await unified()).toBe(first);

  await writeFile(join(dir, 'alpha.yaml'), tpl('alpha', 'base 2nd!'));
  const second = await unified();
  expect(second).toContain('-  purpose: base 2nd!');
  expect(second).not.toContain('base first');

  await writeFile(join(dir, 'mine.yaml'), withBase('mine 2nd!'));
  const third = await unified();
  expect(third).toContain('+  purpose: mine 2nd!');
  expect(third).not.toContain('mine first');
  await lib.close();
});
