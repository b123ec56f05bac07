import { mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { RACY_MS } from '../src/library/memos/entry-cache.js';
import { validateTemplate } from '../src/template/validate.js';
import { fixture, tpl } from './library-helpers.js';

/**
 * What the library keeps (the list's facts per file, keyed on stats, and the
 * validation memo) never answers stale: every change made by hand is seen on
 * the next call, whether the files are younger than the racy window or older.
 * Asserted through openLibrary alone; memo reuse is counted with a validate
 * stand-in.
 */

/** A clock past the racy window: every file the test writes is "old", so a stat alone must prove it. */
const later = () => Date.now() + 10 * RACY_MS;
/** An mtime in whole seconds: set back to it, a file's mtime is exactly what it was. */
const HOUR_AGO = Math.floor(Date.now() / 1000) - 3600;

function counting() {
  const calls: string[] = [];
  const validate: typeof validateTemplate = (src, o) => {
    calls.push(o.name ?? '');
    return validateTemplate(src, o);
  };
  return { calls, validate };
}

describe('old files: a stat proves them, and a change that keeps the size and the mtime is still seen', () => {
  test('an unchanged library is validated once, however often it is listed', async () => {
    const fx = await fixture();
    await mkdir(join(fx.root, 'templates'));
    await writeFile(join(fx.root, 'templates', 'mine.yaml'), tpl('mine', 'first'));
    const { calls, validate } = counting();
    const lib = await fx.open({ validate, now: later });
    await lib.listTemplates();
    const n = calls.length;
    expect(n).toBe(3); // alpha, beta, mine
    await lib.listTemplates();
    await lib.listTemplates();
    expect(calls.length).toBe(n);
    // a list keeps outlines alone: the first read of one template makes its whole validation once,
    // and the next reads take it from the memo
    expect((await lib.getTemplate('mine'))!.valid).toBe(true);
    expect(calls.length).toBe(n + 1);
    await lib.getTemplate('mine');
    await lib.getTemplate('mine');
    expect(calls.length).toBe(n + 1);
    await lib.close();
  });

  test('same size, mtime set back by hand: the list and the template show the new bytes', async () => {
    const fx = await fixture();
    await mkdir(join(fx.root, 'templates'));
    const p = join(fx.root, 'templates', 'mine.yaml');
    await writeFile(p, tpl('mine', 'aaaa'));
    // whole seconds, so setting it back restores every nanosecond of the stat's mtime
    await utimes(p, HOUR_AGO, HOUR_AGO);
    const lib = await fx.open({ now: later });
    expect((await lib.listTemplates()).find((e) => e.name === 'mine')!.purpose).toBe('aaaa');
    await writeFile(p, tpl('mine', 'bbbb'));
    await utimes(p, HOUR_AGO, HOUR_AGO);
    expect((await lib.listTemplates()).find((e) => e.name === 'mine')!.purpose).toBe('bbbb');
    expect((await lib.getTemplate('mine'))!.source).toBe(tpl('mine', 'bbbb'));
    await lib.close();
  });

  test('a marker edited by hand (same size, mtime set back) moves the state', async () => {
    const fx = await fixture();
    const lib = await fx.open({ now: later });
    await lib.saveTemplate('alpha', tpl('alpha', 'edited'));
    const state = async () => (await lib.listTemplates()).find((e) => e.name === 'alpha')!;
    expect(await state()).toMatchObject({ state: 'edited', edited_outside: false });
    const marker = join(fx.root, 'templates', '.alpha.shipped');
    await utimes(marker, HOUR_AGO, HOUR_AGO);
    expect(await state()).toMatchObject({ state: 'edited', edited_outside: false });
    // the copy line of another hash, same length
    const text = await readFile(marker, 'utf8');
    await writeFile(marker, text.replace(/copy ([0-9a-f])/, (_m, c: string) => `copy ${c === 'a' ? 'b' : 'a'}`));
    await utimes(marker, HOUR_AGO, HOUR_AGO);
    expect(await state()).toMatchObject({ state: 'edited', edited_outside: true });
    await lib.close();
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
    expect((await lib.listTemplates()).find((e) => e.name === 'alpha')!.purpose).toBe('edit aaaa');
    const st = await stat(copy);
    await writeFile(copy, b);
    await utimes(copy, st.atime, st.mtime);
    expect((await lib.listTemplates()).find((e) => e.name === 'alpha')).toMatchObject({ purpose: 'edit bbbb', edited_outside: true });
    expect(await lib.getTemplate('alpha')).toMatchObject({ source: b, edited_outside: true });
    await lib.close();
  });

  test('a role folder added by hand makes a template valid; removing it makes it invalid again', async () => {
    const fx = await fixture();
    const { calls, validate } = counting();
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

  test('a role added by hand re-validates only the templates that asked about it', async () => {
    const fx = await fixture();
    const { calls, validate } = counting();
    await mkdir(join(fx.root, 'templates'));
    await writeFile(join(fx.root, 'templates', 'needs.yaml'), tpl('needs', 'needs an auditor', 'auditor'));
    await writeFile(join(fx.root, 'templates', 'plain.yaml'), tpl('plain', 'a worker only'));
    const lib = await fx.open({ validate, now: later });
    await lib.listTemplates();
    calls.length = 0;
    await mkdir(join(fx.root, 'roles', 'auditor'), { recursive: true });
    await writeFile(join(fx.root, 'roles', 'auditor', 'role.md'), 'You audit.\n');
    const list = await lib.listTemplates();
    expect(calls).toEqual(['needs']);
    expect(list.find((e) => e.name === 'needs')).toMatchObject({ valid: true, errors: 0 });
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

  test('a template added and removed by hand satisfies, then fails, another template’s base', async () => {
    const fx = await fixture();
    const lib = await fx.open({ now: later });
    await mkdir(join(fx.root, 'templates'));
    const variant = tpl('variant', 'a variant').replace('  entry:', '  base: origin\n  entry:');
    await writeFile(join(fx.root, 'templates', 'variant.yaml'), variant);
    const codes = async () => (await lib.getTemplate('variant'))!.problems.map((p) => p.code);
    // base.unknown is a warning: the list counts it
    const listed = async () => (await lib.listTemplates()).find((e) => e.name === 'variant')!.warnings === 0;
    expect(await codes()).toEqual(['base.unknown']);
    expect(await listed()).toBe(false);
    await writeFile(join(fx.root, 'templates', 'origin.yaml'), tpl('origin'));
    expect(await listed()).toBe(true);
    expect(await codes()).toEqual([]);
    await rm(join(fx.root, 'templates', 'origin.yaml'));
    expect(await listed()).toBe(false);
    expect(await codes()).toEqual(['base.unknown']);
    await lib.close();
  });
});
