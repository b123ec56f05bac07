/**
 * A FIFO placed by hand at a bookkeeping path (an intent, a marker, a kept
 * base) or at a template path (docs/security.md, Odd files): every read
 * opens without blocking and checks the type first, so the FIFO is skipped
 * (logged) or listed as a problem — never waited on. Each test watches the
 * FIFO (odd-files-helpers.ts): a reader that waits on it is released after
 * a few seconds and the test fails on `readerWaited`, instead of hanging.
 */
import { lstatSync } from 'node:fs';
import { mkdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { formatTemplateIntent } from '../src/library/disk/intents.js';
import { sha256Hex } from '../src/library/disk/markers.js';
import type { Library } from '../src/library/types.js';
import { codeOf, DEFAULT_HARNESS, fixture, tpl } from './library-helpers.js';
import { type FifoWatch, keepLog, mkfifo, warnsAbout, watchFifo } from './odd-files-helpers.js';

const watches: FifoWatch[] = [];
const libs: Library[] = [];
afterEach(async () => {
  for (const w of watches.splice(0)) w.stop();
  for (const l of libs.splice(0)) await l.close();
});

function watch(path: string): FifoWatch {
  mkfifo(path);
  const w = watchFifo(path);
  watches.push(w);
  return w;
}

test('a FIFO at a template intent and one at a template path: the library opens, warns, lists, and refuses only that name’s save', async () => {
  const fx = await fixture();
  await mkdir(join(fx.root, 'templates'));
  const intent = join(fx.root, 'templates', '.alpha.intent');
  const w = watch(intent);
  const atTemplate = watch(join(fx.root, 'templates', 'gamma.yaml'));
  const { logger, lines } = keepLog();
  const lib = await fx.open({ logger });
  libs.push(lib);
  expect(warnsAbout(lines, 'templates/.alpha.intent')).toHaveLength(1);
  expect(lstatSync(intent).isFIFO()).toBe(true);
  const listed = await lib.listTemplates();
  expect(listed.map((e) => [e.name, e.state, e.valid])).toEqual([
    ['alpha', 'shipped', true],
    ['beta', 'shipped', true],
    ['gamma', 'custom', false],
  ]);
  expect((await lib.getTemplate('gamma'))?.problems.map((p) => p.code)).toEqual(['file.unreadable']);
  // the save would write that intent: refused with a code, nothing waited on
  expect(await codeOf(lib.saveTemplate('alpha', tpl('alpha', 'edited')))).toBe('library_unwritable');
  // another name is untouched by it
  expect((await lib.saveTemplate('beta', tpl('beta', 'edited'))).state).toBe('edited');
  expect([w.readerWaited(), atTemplate.readerWaited()]).toEqual([false, false]);
});

test('FIFOs at four template intents made while running: saves of other names still finish, none waits', async () => {
  const fx = await fixture({ ...DEFAULT_HARNESS, templates: { a1: tpl('a1'), a2: tpl('a2'), a3: tpl('a3'), a4: tpl('a4'), beta: tpl('beta') } });
  const lib = await fx.open();
  libs.push(lib);
  await lib.listTemplates();
  await mkdir(join(fx.root, 'templates'));
  const ws = ['a1', 'a2', 'a3', 'a4'].map((n) => watch(join(fx.root, 'templates', `.${n}.intent`)));
  // each write first looks for its name's intent: four waits would hold every thread of libuv's pool
  const codes = await Promise.all(['a1', 'a2', 'a3', 'a4'].map((n) => codeOf(lib.saveTemplate(n, tpl(n, 'edited')))));
  expect(codes).toEqual(['library_unwritable', 'library_unwritable', 'library_unwritable', 'library_unwritable']);
  expect((await lib.saveTemplate('beta', tpl('beta', 'edited'))).state).toBe('edited');
  expect(ws.map((w) => w.readerWaited())).toEqual([false, false, false, false]);
});

test('a FIFO at a role intent: the library opens, logs it, and lists the role', async () => {
  const fx = await fixture();
  await mkdir(join(fx.root, 'roles'));
  const w = watch(join(fx.root, 'roles', '.worker.intent'));
  const { logger, lines } = keepLog();
  const lib = await fx.open({ logger });
  libs.push(lib);
  expect(warnsAbout(lines, 'roles/.worker.intent')).toHaveLength(1);
  expect((await lib.getRole('worker'))?.state).toBe('shipped');
  expect(w.readerWaited()).toBe(false);
});

test('a FIFO at the marker a pending intent names: recovery skips that name, logged, and the library opens', async () => {
  const fx = await fixture();
  await mkdir(join(fx.root, 'templates'));
  const shipped = sha256Hex(tpl('alpha', 'alpha v1'));
  const edited = tpl('alpha', 'edited');
  await writeFile(join(fx.root, 'templates', 'alpha.yaml'), edited);
  await writeFile(join(fx.root, 'templates', '.alpha.intent'), formatTemplateIntent({ op: 'save', marker: { shipped, copy: sha256Hex(edited) }, was: { copy: null, marker: null } }));
  const w = watch(join(fx.root, 'templates', '.alpha.shipped'));
  const { logger, lines } = keepLog();
  const lib = await fx.open({ logger });
  libs.push(lib);
  expect(warnsAbout(lines, 'alpha')).not.toHaveLength(0);
  // readers apply the intent that recovery could not finish
  expect((await lib.getTemplate('alpha'))?.source).toBe(edited);
  expect(w.readerWaited()).toBe(false);
});

test('a FIFO at a kept base: the base is not there for a merge, and nothing waits on it', async () => {
  const fx = await fixture();
  const lib = await fx.open();
  libs.push(lib);
  await lib.saveTemplate('alpha', tpl('alpha', 'edited'));
  const base = join(fx.root, 'templates', '.shipped-base', `${sha256Hex(tpl('alpha', 'alpha v1'))}.yaml`);
  await unlink(base);
  const w = watch(base);
  expect(await lib.keptBase('alpha')).toBeNull();
  expect(w.readerWaited()).toBe(false);
});

test('a FIFO at a marker and at a kept base, no intent pending: each logged once at start, and reads skip them', async () => {
  const fx = await fixture();
  await mkdir(join(fx.root, 'templates', '.shipped-base'), { recursive: true });
  await writeFile(join(fx.root, 'templates', 'alpha.yaml'), tpl('alpha', 'edited'));
  const marker = watch(join(fx.root, 'templates', '.alpha.shipped'));
  const base = watch(join(fx.root, 'templates', '.shipped-base', `${sha256Hex('x')}.yaml`));
  const { logger, lines } = keepLog();
  const lib = await fx.open({ logger });
  libs.push(lib);
  expect(warnsAbout(lines, 'templates/.alpha.shipped')).toHaveLength(1);
  expect(warnsAbout(lines, `templates/.shipped-base/${sha256Hex('x')}.yaml`)).toHaveLength(1);
  // no marker it can read: an edited copy, as the states table says
  for (let i = 0; i < 2; i++) expect((await lib.getTemplate('alpha'))?.state).toBe('edited');
  expect(warnsAbout(lines, 'templates/.alpha.shipped')).toHaveLength(1);
  expect([marker.readerWaited(), base.readerWaited()]).toEqual([false, false]);
});
