/**
 * A link or a folder where the library keeps an intent (docs/operations.md,
 * Odd files): the start logs it with its path and leaves it where it is —
 * never followed, never removed — and the service starts; the other names
 * are recovered as ever.
 */
import { lstatSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { formatTemplateIntent } from '../src/library/disk/intents.js';
import { formatMarker, sha256Hex } from '../src/library/disk/markers.js';
import type { Library } from '../src/library/types.js';
import { codeOf, fixture, tpl } from './library-helpers.js';
import { keepLog, warnsAbout } from './odd-files-helpers.js';

const libs: Library[] = [];
afterEach(async () => {
  for (const l of libs.splice(0)) await l.close();
});

test('a link at a template intent and a folder at a role intent: logged, left alone, and the library opens', async () => {
  const fx = await fixture();
  await mkdir(join(fx.root, 'templates'));
  await mkdir(join(fx.root, 'roles'));
  // a link to a real intent elsewhere: following it would apply it
  const elsewhere = join(fx.base, 'elsewhere.intent');
  const edited = tpl('alpha', 'edited');
  await writeFile(elsewhere, formatTemplateIntent({ op: 'save', marker: { shipped: sha256Hex(tpl('alpha', 'alpha v1')), copy: sha256Hex(edited) }, was: { copy: null, marker: null } }));
  await symlink(elsewhere, join(fx.root, 'templates', '.alpha.intent'));
  await mkdir(join(fx.root, 'roles', '.worker.intent'));
  const { logger, lines } = keepLog();
  const lib = await fx.open({ logger });
  libs.push(lib);
  expect(warnsAbout(lines, 'templates/.alpha.intent')).toHaveLength(1);
  expect(warnsAbout(lines, 'roles/.worker.intent')).toHaveLength(1);
  expect(lstatSync(join(fx.root, 'templates', '.alpha.intent')).isSymbolicLink()).toBe(true);
  expect(lstatSync(join(fx.root, 'roles', '.worker.intent')).isDirectory()).toBe(true);
  expect((await lib.listTemplates()).map((e) => [e.name, e.state])).toEqual([
    ['alpha', 'shipped'],
    ['beta', 'shipped'],
  ]);
  expect((await lib.listRoles()).map((r) => [r.name, r.state])).toEqual([
    ['ticket_intake', 'shipped'],
    ['worker', 'shipped'],
  ]);
  // a save of that name would write through the link: refused with its code; other names save
  expect(await codeOf(lib.saveTemplate('alpha', edited))).toBe('symlink_refused');
  expect((await lib.saveTemplate('beta', tpl('beta', 'edited'))).state).toBe('edited');
});

test('a folder at one intent does not stop the recovery of another name', async () => {
  const fx = await fixture();
  await mkdir(join(fx.root, 'templates', '.alpha.intent'), { recursive: true });
  // beta: a save that crashed after the copy landed, before its marker did
  const shipped = sha256Hex(tpl('beta', 'beta v1'));
  const edited = tpl('beta', 'edited');
  const marker = { shipped, copy: sha256Hex(edited) };
  await writeFile(join(fx.root, 'templates', 'beta.yaml'), edited);
  await writeFile(join(fx.root, 'templates', '.beta.intent'), formatTemplateIntent({ op: 'save', marker, was: { copy: null, marker: null } }));
  const { logger, lines } = keepLog();
  const lib = await fx.open({ logger });
  libs.push(lib);
  expect(warnsAbout(lines, 'templates/.alpha.intent')).toHaveLength(1);
  expect(lstatSync(join(fx.root, 'templates', '.alpha.intent')).isDirectory()).toBe(true);
  expect((await lib.getTemplate('beta'))?.state).toBe('edited');
  // beta's recovery ran for real: its marker written, its intent gone
  expect(lstatSync(join(fx.root, 'templates', '.beta.intent'), { throwIfNoEntry: false })).toBeUndefined();
  expect(await readFile(join(fx.root, 'templates', '.beta.shipped'), 'utf8')).toBe(formatMarker(marker));
});
