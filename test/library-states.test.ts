import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { sha256Hex } from '../src/library/disk/markers.js';
import { codeOf, fixture, tpl } from './library-helpers.js';
import { testSpawner } from './test-spawner.js';

/** Every state of the table in docs/api.md (States), with the marker bytes on disk. */

const V1 = tpl('alpha', 'alpha v1');
const V2 = tpl('alpha', 'alpha v2');
const EDIT = tpl('alpha', 'alpha edited by the operator');
const h = sha256Hex;
const tdir = (root: string) => join(root, 'templates');
const markerText = (root: string) => readFile(join(tdir(root), '.alpha.shipped'), 'utf8');

/** Opens, runs fn, closes; then "ships" V2 as today's alpha and reopens. */
async function upgradeAfter(fn: (lib: Awaited<ReturnType<Awaited<ReturnType<typeof fixture>>['open']>>) => Promise<void>) {
  const fx = await fixture();
  const lib = await fx.open();
  await fn(lib);
  await lib.close();
  await writeFile(join(fx.harness, 'templates', 'alpha.yaml'), V2);
  return { fx, lib: await fx.open() };
}

describe('template states', () => {
  test('no copy → shipped, loading the shipped bytes', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const e = (await lib.getTemplate('alpha'))!;
    expect(e).toMatchObject({ state: 'shipped', shipped: true, read_only: false, edited_outside: false, source: V1, shipped_source: V1, etag: `"${h(V1)}"`, valid: true });
    await lib.close();
  });

  test('save identical → same_as_shipped, marker has both lines, base kept, no intent left', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const e = await lib.saveTemplate('alpha', V1);
    expect(e.state).toBe('same_as_shipped');
    expect(await markerText(fx.root)).toBe(`${h(V1)}\ncopy ${h(V1)}\n`);
    expect(await readFile(join(tdir(fx.root), '.shipped-base', `${h(V1)}.yaml`), 'utf8')).toBe(V1);
    expect((await readdir(tdir(fx.root))).sort()).toEqual(['.alpha.shipped', '.shipped-base', 'alpha.yaml']);
    expect(await lib.keptBase('alpha')).toBe(V1);
    await lib.close();
  });

  test('save an edit → edited; marker records the shipped hash and the copy hash', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const e = await lib.saveTemplate('alpha', EDIT);
    expect(e).toMatchObject({ state: 'edited', edited_outside: false, source: EDIT, shipped_source: V1, etag: `"${h(EDIT)}"` });
    expect(await markerText(fx.root)).toBe(`${h(V1)}\ncopy ${h(EDIT)}\n`);
    await lib.close();
  });

  test('an edited copy whose shipped version changed → shipped_changed_since; acknowledge → edited, copy line kept', async () => {
    const { fx, lib } = await upgradeAfter(async (l) => void (await l.saveTemplate('alpha', EDIT)));
    const e = (await lib.getTemplate('alpha'))!;
    expect(e).toMatchObject({ state: 'shipped_changed_since', source: EDIT, shipped_source: V2, edited_outside: false });
    expect(await lib.keptBase('alpha')).toBe(V1);
    const acked = await lib.acknowledgeTemplate('alpha');
    expect(acked.state).toBe('edited');
    expect(await markerText(fx.root)).toBe(`${h(V2)}\ncopy ${h(EDIT)}\n`);
    expect(await readFile(join(tdir(fx.root), 'alpha.yaml'), 'utf8')).toBe(EDIT);
    expect(await codeOf(lib.acknowledgeTemplate('alpha'))).toBe('state_conflict');
    await lib.close();
  });

  test('an unedited copy of an older shipped version → stale; reset brings today’s bytes back', async () => {
    const { fx, lib } = await upgradeAfter(async (l) => void (await l.saveTemplate('alpha', V1)));
    expect((await lib.getTemplate('alpha'))!.state).toBe('stale');
    expect(await codeOf(lib.acknowledgeTemplate('alpha'))).toBe('state_conflict');
    const r = await lib.resetTemplate('alpha');
    expect(r).toMatchObject({ state: 'shipped', source: V2 });
    expect((await readdir(tdir(fx.root))).sort()).toEqual(['.shipped-base']);
    await lib.close();
  });

  test('a hand edit after a save → edited_outside', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    await lib.saveTemplate('alpha', EDIT);
    await writeFile(join(tdir(fx.root), 'alpha.yaml'), EDIT + '# by hand\n');
    expect(await lib.getTemplate('alpha')).toMatchObject({ state: 'edited', edited_outside: true });
    // even a hand edit back to the shipped bytes is reported as done outside
    await writeFile(join(tdir(fx.root), 'alpha.yaml'), V1);
    expect(await lib.getTemplate('alpha')).toMatchObject({ state: 'same_as_shipped', edited_outside: true });
    await lib.close();
  });

  test('a one-line marker is read; with no copy line nothing reads edited_outside', async () => {
    const fx = await fixture();
    await mkdir(tdir(fx.root));
    await writeFile(join(tdir(fx.root), 'alpha.yaml'), EDIT);
    await writeFile(join(tdir(fx.root), '.alpha.shipped'), `${h('an older alpha')}\n`);
    const lib = await fx.open();
    expect(await lib.getTemplate('alpha')).toMatchObject({ state: 'shipped_changed_since', edited_outside: false });
    await writeFile(join(tdir(fx.root), '.alpha.shipped'), h(V1));
    expect(await lib.getTemplate('alpha')).toMatchObject({ state: 'edited', edited_outside: false });
    await lib.close();
  });

  test.each([
    ['no marker', null],
    ['a malformed marker', 'not a hash\n'],
    ['a marker with a bad copy line', `${h('older')}\ncopy zz\n`],
    ['a marker with extra lines', `${h('older')}\ncopy ${h(EDIT)}\nmore\n`],
  ])('a copy with %s reads edited, never shipped_changed_since, and edited outside the service', async (_label, marker) => {
    const fx = await fixture();
    await mkdir(tdir(fx.root));
    await writeFile(join(tdir(fx.root), 'alpha.yaml'), EDIT);
    if (marker !== null) await writeFile(join(tdir(fx.root), '.alpha.shipped'), marker);
    const lib = await fx.open();
    // the service writes a marker it can read back with every copy: this one was made without it
    expect(await lib.getTemplate('alpha')).toMatchObject({ state: 'edited', edited_outside: true });
    await lib.close();
  });

  test('an identical copy is same_as_shipped whatever its marker says (bytes decide first)', async () => {
    const fx = await fixture();
    await mkdir(tdir(fx.root));
    await writeFile(join(tdir(fx.root), 'alpha.yaml'), V1);
    await writeFile(join(tdir(fx.root), '.alpha.shipped'), `${h('older')}\ncopy ${h(V1)}\n`);
    const lib = await fx.open();
    expect(await lib.getTemplate('alpha')).toMatchObject({ state: 'same_as_shipped', edited_outside: false });
    await lib.close();
  });

  test('an operator-only name → custom, and no marker is written for it', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const e = await lib.saveTemplate('mine', tpl('mine'));
    expect(e).toMatchObject({ state: 'custom', shipped: false, shipped_source: null, edited_outside: false });
    expect(await readdir(tdir(fx.root))).toEqual(['mine.yaml']);
    expect(await lib.keptBase('mine')).toBeNull();
    await lib.close();
  });

  test('read-only templates are listed read_only and refuse save, reset and delete', async () => {
    const fx = await fixture();
    const src = tpl('form', 'an input form');
    const lib = await fx.open({ readOnlyTemplates: new Map([['form', src]]) });
    await mkdir(tdir(fx.root));
    await writeFile(join(tdir(fx.root), 'form.yaml'), tpl('form', 'operator attempt'));
    expect(await lib.getTemplate('form')).toMatchObject({ state: 'read_only', read_only: true, source: src, valid: true });
    expect(await codeOf(lib.saveTemplate('form', src))).toBe('read_only');
    expect(await codeOf(lib.resetTemplate('form'))).toBe('read_only');
    expect(await codeOf(lib.deleteTemplate('form'))).toBe('read_only');
    await lib.close();
  });

  test('the default read-only set holds a valid input template', async () => {
    const fx = await fixture();
    const { openLibrary } = await import('../src/library/library.js');
    const lib = await openLibrary({ spawner: testSpawner, root: fx.root });
    const list = await lib.listTemplates();
    const ro = list.filter((e) => e.read_only);
    expect(ro.length).toBeGreaterThan(0);
    for (const e of ro) expect(e).toMatchObject({ state: 'read_only', valid: true, errors: 0, warnings: 0 });
    await lib.close();
  });
});

describe('listing', () => {
  test('markers, intents, temps, the base folder and off-pattern names are never listed; broken files are, without hiding others', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    await lib.saveTemplate('alpha', EDIT);
    const t = tdir(fx.root);
    await writeFile(join(t, '.tmp-alpha.yaml-abc'), 'torn');
    await writeFile(join(t, 'Bad.yaml'), tpl('Bad'));
    await writeFile(join(t, 'other.yml'), tpl('other'));
    await writeFile(join(t, 'broken.yaml'), 'template: [unclosed\n');
    await writeFile(join(t, 'wrong.yaml'), tpl('not-wrong'));
    await symlink(join(fx.harness, 'templates', 'beta.yaml'), join(t, 'linked.yaml'));
    await mkdir(join(t, 'dir.yaml'));
    const list = await lib.listTemplates();
    expect(list.map((e) => e.name)).toEqual(['alpha', 'beta', 'broken', 'dir', 'linked', 'wrong']);
    const by = Object.fromEntries(list.map((e) => [e.name, e]));
    expect(by.broken).toMatchObject({ state: 'custom', valid: false });
    // the list shows counts; one template's problems come with it alone
    const problems = async (name: string) => (await lib.getTemplate(name))!.problems.map((p) => p.code);
    expect((await problems('broken'))[0]).toBe('yaml.syntax');
    expect(await problems('wrong')).toContain('name.mismatch');
    expect(by.linked).toMatchObject({ valid: false, errors: 1 });
    expect((await lib.getTemplate('linked'))!.source).toBe('');
    expect(await problems('linked')).toEqual(['file.unreadable']);
    expect(await problems('dir')).toEqual(['file.unreadable']);
    expect(by.alpha).toMatchObject({ state: 'edited', valid: true });
    await lib.close();
  });

  test('no root: shipped only, every write refused with no_library_root', async () => {
    const fx = await fixture();
    const { openLibrary } = await import('../src/library/library.js');
    const lib = await openLibrary({ spawner: testSpawner, root: null, harnessDir: fx.harness, readOnlyTemplates: new Map() });
    expect(lib.root).toBeNull();
    expect((await lib.listTemplates()).map((e) => [e.name, e.state])).toEqual([['alpha', 'shipped'], ['beta', 'shipped']]);
    expect(await codeOf(lib.saveTemplate('alpha', V1))).toBe('no_library_root');
    expect(await codeOf(lib.saveTemplate('mine', tpl('mine')))).toBe('no_library_root');
    expect(await codeOf(lib.resetTemplate('alpha'))).toBe('no_library_root');
    expect(await codeOf(lib.acknowledgeTemplate('alpha'))).toBe('no_library_root');
    expect(await codeOf(lib.deleteTemplate('mine'))).toBe('no_library_root');
    expect(await codeOf(lib.saveRole('worker', 'x', null))).toBe('no_library_root');
    expect(await codeOf(lib.resetRole('worker'))).toBe('no_library_root');
    expect(await lib.keptBase('alpha')).toBeNull();
    await lib.close();
  });

  test.each(['../alpha', 'Alpha', '', '-x', 'a'.repeat(65), 'a/b', '.alpha'])('bad template name %j → invalid_name', async (name) => {
    const fx = await fixture();
    const lib = await fx.open();
    expect(await codeOf(lib.getTemplate(name))).toBe('invalid_name');
    expect(await codeOf(lib.saveTemplate(name, tpl('x')))).toBe('invalid_name');
    expect(await codeOf(lib.keptBase(name))).toBe('invalid_name');
    expect(await codeOf(lib.getRole(name))).toBe('invalid_name');
    await lib.close();
  });
});
