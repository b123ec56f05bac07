import { mkdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FileCache, RACY_MS } from '../src/library/file-cache.js';
import { validateTemplate } from '../src/template/validate.js';
import { fixture, tempDir, tpl } from './library-helpers.js';

/** Cached entries, and every change made by hand seen on the next call. */

describe('FileCache', () => {
  test('an old, unchanged file is read from disk once', async () => {
    const dir = await tempDir();
    const p = join(dir, 'a.yaml');
    await writeFile(p, 'a\n');
    const cache = new FileCache(() => Date.now() + 10 * RACY_MS);
    await cache.read(p);
    await cache.read(p);
    await cache.read(p);
    expect(cache.diskReads).toBe(1);
  });

  test('a file modified within the racy window is hashed again on every read', async () => {
    const dir = await tempDir();
    const p = join(dir, 'a.yaml');
    await writeFile(p, 'a\n');
    const cache = new FileCache();
    await cache.read(p);
    await cache.read(p);
    expect(cache.diskReads).toBe(2);
  });

  test('same size, mtime restored, read with a clock past the racy window: still seen', async () => {
    const dir = await tempDir();
    const p = join(dir, 'a.yaml');
    await writeFile(p, 'aaaa\n');
    const before = await stat(p);
    const cache = new FileCache(() => Date.now() + 10 * RACY_MS);
    expect(await cache.read(p)).toMatchObject({ text: 'aaaa\n' });
    await writeFile(p, 'bbbb\n');
    await utimes(p, before.atime, before.mtime);
    expect(await cache.read(p)).toMatchObject({ text: 'bbbb\n' });
  });
});

describe('hand changes are seen on the next call', () => {
  test('edit, deletion and a new file', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    await lib.saveTemplate('mine', tpl('mine', 'first'));
    const t = join(fx.root, 'templates');
    expect((await lib.getTemplate('mine'))!.source).toBe(tpl('mine', 'first'));
    await writeFile(join(t, 'mine.yaml'), tpl('mine', 'second, by hand'));
    expect((await lib.getTemplate('mine'))!.source).toBe(tpl('mine', 'second, by hand'));
    await writeFile(join(t, 'fresh.yaml'), tpl('fresh'));
    expect((await lib.listTemplates()).map((e) => e.name)).toEqual(['alpha', 'beta', 'fresh', 'mine']);
    await rm(join(t, 'mine.yaml'));
    expect(await lib.getTemplate('mine')).toBeNull();
    expect((await lib.listTemplates()).map((e) => e.name)).toEqual(['alpha', 'beta', 'fresh']);
    await lib.close();
  });

  test('an edit in the same millisecond that keeps the size (mtime restored) is seen, in the copy and in the marker', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const a = tpl('alpha', 'edit aaaa');
    const b = tpl('alpha', 'edit bbbb');
    await lib.saveTemplate('alpha', a);
    const copy = join(fx.root, 'templates', 'alpha.yaml');
    expect((await lib.getTemplate('alpha'))!.source).toBe(a);
    const st = await stat(copy);
    await writeFile(copy, b);
    await utimes(copy, st.atime, st.mtime);
    expect(await lib.getTemplate('alpha')).toMatchObject({ source: b, edited_outside: true });
    await lib.close();
  });

  test('a role folder added by hand makes a template valid; removing it makes it invalid again', async () => {
    const fx = await fixture();
    const calls: string[] = [];
    const validate: typeof validateTemplate = (src, o) => {
      calls.push(o.name ?? '');
      return validateTemplate(src, o);
    };
    const lib = await fx.open({ validate });
    await mkdir(join(fx.root, 'templates'));
    await writeFile(join(fx.root, 'templates', 'needs.yaml'), tpl('needs', 'needs a role', 'auditor'));
    expect((await lib.getTemplate('needs'))!.valid).toBe(false);
    const n = calls.length;
    expect((await lib.getTemplate('needs'))!.valid).toBe(false);
    expect(calls.length).toBe(n); // unchanged file, unchanged catalogue: the memo answers
    await mkdir(join(fx.root, 'roles', 'auditor'), { recursive: true });
    await writeFile(join(fx.root, 'roles', 'auditor', 'role.md'), 'You audit.\n');
    expect((await lib.getTemplate('needs'))!).toMatchObject({ valid: true, problems: [] });
    expect(calls.length).toBe(n + 1);
    await rm(join(fx.root, 'roles', 'auditor'), { recursive: true });
    expect((await lib.getTemplate('needs'))!.valid).toBe(false);
    await lib.close();
  });

  test('a template added by hand satisfies another template’s base on the next call', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    await mkdir(join(fx.root, 'templates'));
    const variant = tpl('variant', 'a variant').replace('  entry:', '  base: origin\n  entry:');
    await writeFile(join(fx.root, 'templates', 'variant.yaml'), variant);
    expect((await lib.getTemplate('variant'))!.problems.map((p) => p.code)).toEqual(['base.unknown']);
    await writeFile(join(fx.root, 'templates', 'origin.yaml'), tpl('origin'));
    expect((await lib.getTemplate('variant'))!.problems).toEqual([]);
    await lib.close();
  });
});
