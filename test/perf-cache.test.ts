import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { sha256Hex } from '../src/library/disk/markers.js';
import { fixture, tpl } from './library-helpers.js';

/**
 * A save's files and their crash states (three flushes; the intent written in
 * place with a checksum), and a change made by hand while the library writes.
 * What the read path keeps, and that it is never stale, is in
 * test/library-cache.test.ts and test/perf-http.test.ts.
 */

describe('template save: three flushes, and a crash between its renames still tells the truth', () => {
  const EDIT = tpl('alpha', 'alpha edited');
  const EDIT2 = tpl('alpha', 'alpha edited twice');

  /** The state after saving EDIT, then a crash during the save of EDIT2 that kept the new marker's rename and lost the copy's. */
  async function markerWithoutCopy() {
    const fx = await fixture();
    const lib = await fx.open();
    await lib.saveTemplate('alpha', EDIT);
    const t = join(fx.root, 'templates');
    const oldMarker = await readFile(join(t, '.alpha.shipped'), 'utf8');
    // the save of EDIT2 as it would be cut: the intent written, the new marker renamed in, the copy not
    const intents: string[] = [];
    const lib2Faults = async (step: string) => {
      if (step === 'intent:fsync-dir') {
        intents.push(await readFile(join(t, '.alpha.intent'), 'utf8'));
        throw new Error('stop');
      }
    };
    await lib.close();
    const lib2 = await fx.open({ faults: lib2Faults });
    await lib2.saveTemplate('alpha', EDIT2).catch(() => {});
    await lib2.close();
    const newMarker = oldMarker.replace(/copy [0-9a-f]{64}/, `copy ${sha256Hex(EDIT2)}`);
    await writeFile(join(t, '.alpha.shipped'), newMarker);
    await writeFile(join(t, '.alpha.intent'), intents[0]!);
    return { fx, t, oldMarker, newMarker, intent: intents[0]! };
  }

  test('a save leaves no intent and no temp file, and keeps the base once', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    await lib.saveTemplate('alpha', EDIT);
    await lib.saveTemplate('alpha', EDIT2);
    const t = join(fx.root, 'templates');
    expect((await readdir(t)).sort()).toEqual(['.alpha.shipped', '.shipped-base', 'alpha.yaml']);
    expect(await readdir(join(t, '.shipped-base'))).toHaveLength(1);
    await lib.close();
  });

  test('the intent records what stood before and carries a checksum', async () => {
    const { intent } = await markerWithoutCopy();
    const lines = intent.split('\n');
    expect(lines[0]).toBe('save');
    expect(lines[3]).toMatch(/^was-copy [0-9a-f]{64}$/);
    expect(lines[4]).toMatch(/^was-marker [0-9a-f]{64} [0-9a-f]{64}$/);
    expect(lines[5]).toMatch(/^sum [0-9a-f]{64}$/);
  });

  test('new marker without its copy: a reader sees the old state, and the next start puts the old marker back', async () => {
    const { fx, t, oldMarker } = await markerWithoutCopy();
    const lib = await fx.open();
    expect(await lib.getTemplate('alpha')).toMatchObject({ source: EDIT, state: 'edited', edited_outside: false });
    expect(await readFile(join(t, '.alpha.shipped'), 'utf8')).toBe(oldMarker);
    expect((await readdir(t)).sort()).toEqual(['.alpha.shipped', '.shipped-base', 'alpha.yaml']);
    await lib.close();
  });

  test('a torn or tampered intent counts as none: nothing is rolled forward or back', async () => {
    const torn = (s: string) => s.slice(0, s.length - 20);
    const tampered = (s: string) => s.replace(/was-copy ([0-9a-f])/, (_m, c: string) => `was-copy ${c === 'a' ? 'b' : 'a'}`);
    for (const damage of [torn, tampered]) {
      const { fx, t, newMarker, intent } = await markerWithoutCopy();
      await writeFile(join(t, '.alpha.intent'), damage(intent));
      const lib = await fx.open();
      // the marker on disk stands as it is (it says the copy is EDIT2): edited_outside, the truth of these files
      expect(await readFile(join(t, '.alpha.shipped'), 'utf8')).toBe(newMarker);
      expect(await readdir(t)).not.toContain('.alpha.intent');
      expect((await lib.getTemplate('alpha'))!.source).toBe(EDIT);
      await lib.close();
    }
  });

  test('an intent that comes back after its save finished, over a copy edited by hand since, changes nothing', async () => {
    const { fx, t, intent } = await markerWithoutCopy();
    const lib = await fx.open();
    await lib.saveTemplate('alpha', EDIT2);
    const marker = await readFile(join(t, '.alpha.shipped'), 'utf8');
    await lib.close();
    await writeFile(join(t, 'alpha.yaml'), tpl('alpha', 'by hand'));
    await writeFile(join(t, '.alpha.intent'), intent);
    const lib2 = await fx.open();
    expect(await readFile(join(t, '.alpha.shipped'), 'utf8')).toBe(marker);
    expect(await lib2.getTemplate('alpha')).toMatchObject({ source: tpl('alpha', 'by hand'), edited_outside: true });
    await lib2.close();
  });
});

describe('a change by hand while the library writes', () => {
  test('a file made by hand during a save is listed at the next request', async () => {
    const fx = await fixture();
    let armed = false;
    let byHand = false;
    const lib = await fx.open({
      faults: async () => {
        // at the save's first file step, after the listing was proven for it
        if (!armed || byHand) return;
        byHand = true;
        await writeFile(join(fx.root, 'templates', 'by-hand.yaml'), tpl('by-hand', 'made while a save ran'));
      },
    });
    await mkdir(join(fx.root, 'templates'), { recursive: true });
    await writeFile(join(fx.root, 'templates', 'mine.yaml'), tpl('mine', 'first'));
    expect((await lib.listTemplates()).map((e) => e.name)).not.toContain('by-hand');
    armed = true;
    await lib.saveTemplate('alpha', tpl('alpha', 'alpha edited'));
    expect(byHand).toBe(true);
    expect((await lib.listTemplates()).map((e) => e.name)).toContain('by-hand');
    await lib.close();
  });
});
