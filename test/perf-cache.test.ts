import { mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DirCache } from '../src/library/dir-cache.js';
import { FileCache, RACY_MS } from '../src/library/file-cache.js';
import { sha256Hex } from '../src/library/markers.js';
import { validateTemplate } from '../src/template/validate.js';
import { fixture, tempDir, tpl } from './library-helpers.js';

/**
 * What the caches keep, and that every change made by hand is
 * seen on the next call — the folder listings, the racy rule on ctime, the
 * validation memo across catalogue changes, and the same entry object while
 * nothing changed. (test/library-cache.test.ts has the file cache's basics.)
 */

const later = () => Date.now() + 10 * RACY_MS;

describe('FileCache: the racy rule looks at ctime too', () => {
  test('an mtime set back by hand does not make a fresh change look old: read again until ctime is old', async () => {
    const dir = await tempDir();
    const p = join(dir, 'a.yaml');
    await writeFile(p, 'aaaa\n');
    const old = new Date(Date.now() - 3_600_000);
    await utimes(p, old, old);
    const cache = new FileCache();
    await cache.read(p);
    await cache.read(p);
    // mtime is an hour old, ctime is now: not yet proven by a stat
    expect(cache.diskReads).toBe(2);
  });

  test('an edit that keeps the size, right after a read, in the same clock tick, is seen', async () => {
    const dir = await tempDir();
    const p = join(dir, 'a.yaml');
    await writeFile(p, 'aaaa\n');
    const cache = new FileCache();
    expect(cache.readSync(p)).toMatchObject({ text: 'aaaa\n' });
    await writeFile(p, 'bbbb\n');
    expect(cache.readSync(p)).toMatchObject({ text: 'bbbb\n' });
  });
});

describe('DirCache: a folder listing is kept while a folder stat proves it', () => {
  test('unchanged folder: listed once; a file added, removed or renamed: listed again and seen', async () => {
    const root = await tempDir();
    await mkdir(join(root, 'templates'));
    await writeFile(join(root, 'templates', 'a.yaml'), 'a');
    const dirs = new DirCache(later);
    const fs = { root };
    const names = () => [...dirs.list(fs, 'templates')!.entries.keys()].sort();
    expect(names()).toEqual(['a.yaml']);
    const first = dirs.list(fs, 'templates');
    expect(dirs.list(fs, 'templates')).toBe(first);
    expect(dirs.listings).toBe(1);
    await writeFile(join(root, 'templates', 'b.yaml'), 'b');
    expect(names()).toEqual(['a.yaml', 'b.yaml']);
    await rm(join(root, 'templates', 'a.yaml'));
    expect(names()).toEqual(['b.yaml']);
    await rm(join(root, 'templates'), { recursive: true });
    expect(dirs.list(fs, 'templates')).toBeNull();
  });

  test('a folder changed within the racy window is listed again on every call', async () => {
    const root = await tempDir();
    await mkdir(join(root, 'roles'));
    const dirs = new DirCache();
    dirs.list({ root }, 'roles');
    dirs.list({ root }, 'roles');
    expect(dirs.listings).toBe(2);
  });

  test("after the library's own write the listing is updated, not listed again; a later change by hand is listed and seen", async () => {
    const root = await tempDir();
    await mkdir(join(root, 'templates'));
    await writeFile(join(root, 'templates', 'a.yaml'), 'a');
    const dirs = new DirCache();
    const fs = { root };
    const first = dirs.list(fs, 'templates')!;
    await writeFile(join(root, 'templates', 'b.yaml'), 'b');
    await writeFile(join(root, 'templates', '.tmp-c.yaml-1'), 'c');
    await rm(join(root, 'templates', '.tmp-c.yaml-1'));
    dirs.ownWrite(fs, 'templates', ['b.yaml'], []);
    // within the racy window, yet not listed again: the write said what changed
    const after = dirs.list(fs, 'templates')!;
    expect([...after.entries].sort()).toEqual(['a.yaml', 'b.yaml']);
    expect(after).not.toBe(first);
    expect(dirs.listings).toBe(1);
    // names unchanged: the same listing object (the catalogue built from it stays)
    await writeFile(join(root, 'templates', 'b.yaml'), 'b2');
    dirs.ownWrite(fs, 'templates', ['b.yaml'], []);
    expect(dirs.list(fs, 'templates')).toBe(after);
    // a later clock tick than the write's (in the same tick is what ownWrite trusts: docs/performance.md)
    await new Promise((r) => setTimeout(r, 30));
    await writeFile(join(root, 'templates', 'by-hand.yaml'), 'x');
    expect([...dirs.list(fs, 'templates')!.entries].sort()).toEqual(['a.yaml', 'b.yaml', 'by-hand.yaml']);
    expect(dirs.listings).toBe(2);
  });
});

describe('the library answers from its caches without going stale', () => {
  test('an unchanged template is the same entry object, validated once; an edit is a new one', async () => {
    const fx = await fixture();
    let calls = 0;
    const validate: typeof validateTemplate = (src, o) => {
      calls++;
      return validateTemplate(src, o);
    };
    await mkdir(join(fx.root, 'templates'));
    await writeFile(join(fx.root, 'templates', 'mine.yaml'), tpl('mine', 'first'));
    const lib = await fx.open({ validate, now: later });
    const a = (await lib.listTemplates()).find((e) => e.name === 'mine')!;
    const n = calls;
    const b = (await lib.listTemplates()).find((e) => e.name === 'mine')!;
    expect(b).toBe(a);
    expect(calls).toBe(n);
    await writeFile(join(fx.root, 'templates', 'mine.yaml'), tpl('mine', 'other'));
    const c = (await lib.getTemplate('mine'))!;
    expect(c).not.toBe(a);
    expect(c.source).toBe(tpl('mine', 'other'));
    await lib.close();
  });

  test('a role added by hand re-validates only the templates that asked about it', async () => {
    const fx = await fixture();
    const calls: string[] = [];
    const validate: typeof validateTemplate = (src, o) => {
      calls.push(o.name ?? '');
      return validateTemplate(src, o);
    };
    await mkdir(join(fx.root, 'templates'));
    await writeFile(join(fx.root, 'templates', 'needs.yaml'), tpl('needs', 'needs an auditor', 'auditor'));
    await writeFile(join(fx.root, 'templates', 'plain.yaml'), tpl('plain', 'a worker only'));
    const lib = await fx.open({ validate });
    expect((await lib.getTemplate('needs'))!.valid).toBe(false);
    await lib.listTemplates();
    calls.length = 0;
    await mkdir(join(fx.root, 'roles', 'auditor'), { recursive: true });
    await writeFile(join(fx.root, 'roles', 'auditor', 'role.md'), 'You audit.\n');
    const list = await lib.listTemplates();
    expect(calls).toEqual(['needs']);
    // a listed entry keeps its outline; its problems are worked out when read (validated again)
    expect(list.find((e) => e.name === 'needs')).toMatchObject({ valid: true, problems: [] });
    calls.length = 0;
    // a template added by hand changes the catalogue too; nothing asked about `extra`
    await writeFile(join(fx.root, 'templates', 'extra.yaml'), tpl('extra'));
    await lib.listTemplates();
    expect(calls).toEqual(['extra']);
    await rm(join(fx.root, 'roles', 'auditor'), { recursive: true });
    expect((await lib.getTemplate('needs'))!.valid).toBe(false);
    expect((await lib.getTemplate('plain'))!.valid).toBe(true);
    await lib.close();
  });

  test('a base added and removed by hand is seen by the template that names it', async () => {
    const fx = await fixture();
    await mkdir(join(fx.root, 'templates'));
    const variant = tpl('variant', 'a variant').replace('  entry:', '  base: origin\n  entry:');
    await writeFile(join(fx.root, 'templates', 'variant.yaml'), variant);
    const lib = await fx.open();
    const codes = async () => (await lib.listTemplates()).find((e) => e.name === 'variant')!.problems.map((p) => p.code);
    expect(await codes()).toEqual(['base.unknown']);
    await writeFile(join(fx.root, 'templates', 'origin.yaml'), tpl('origin'));
    expect(await codes()).toEqual([]);
    await rm(join(fx.root, 'templates', 'origin.yaml'));
    expect(await codes()).toEqual(['base.unknown']);
    await lib.close();
  });

  test('a view answers a template and the catalogue from one proof, and a new view sees a new file', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const v1 = await lib.view!();
    expect(await v1.getTemplate('fresh')).toBeNull();
    await mkdir(join(fx.root, 'templates'));
    await writeFile(join(fx.root, 'templates', 'fresh.yaml'), tpl('fresh'));
    const v2 = await lib.view!();
    expect(v2.catalogue.templates.has('fresh')).toBe(true);
    expect((await v2.getTemplate('fresh'))!.state).toBe('custom');
    await lib.close();
  });
});

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
