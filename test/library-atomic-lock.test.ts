import { mkdir, readdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { removeFileDurable, writeFileAtomic } from '../src/library/disk/atomic-write.js';
import { openLibrary } from '../src/library/library.js';
import { LOCK_FILE } from '../src/library/disk/root-lock.js';
import { codeOf, fixture, tempDir, tpl } from './library-helpers.js';
import { testSpawner } from './test-spawner.js';

const enospc = () => Object.assign(new Error('no space'), { code: 'ENOSPC' });

describe('writeFileAtomic', () => {
  test('writes the bytes, creates folders, leaves no temp file', async () => {
    const root = await tempDir();
    await writeFileAtomic({ root }, ['templates', 'a.yaml'], 'one\n', 'copy');
    await writeFileAtomic({ root }, ['templates', 'a.yaml'], 'two\n', 'copy');
    expect(await readFile(join(root, 'templates', 'a.yaml'), 'utf8')).toBe('two\n');
    expect(await readdir(join(root, 'templates'))).toEqual(['a.yaml']);
  });

  test('announces its steps in order', async () => {
    const root = await tempDir();
    const steps: string[] = [];
    await writeFileAtomic({ root, faults: (s) => void steps.push(s) }, ['x.yaml'], 'x', 'copy');
    expect(steps).toEqual(['copy:open', 'copy:write', 'copy:fsync', 'copy:rename', 'copy:fsync-dir']);
  });

  test('ENOSPC mid-write → library_unwritable, old bytes kept, temp removed', async () => {
    const root = await tempDir();
    await writeFile(join(root, 'a.yaml'), 'old\n');
    let thrown = false;
    const faults = (s: string) => {
      if (s === 'copy:fsync' && !thrown) {
        thrown = true;
        throw enospc();
      }
    };
    expect(await codeOf(writeFileAtomic({ root, faults }, ['a.yaml'], 'new\n', 'copy'))).toBe('library_unwritable');
    expect(await readFile(join(root, 'a.yaml'), 'utf8')).toBe('old\n');
    expect(await readdir(root)).toEqual(['a.yaml']);
  });

  test('a link as the target is refused and left alone', async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await writeFile(join(outside, 'victim'), 'keep\n');
    await symlink(join(outside, 'victim'), join(root, 'a.yaml'));
    expect(await codeOf(writeFileAtomic({ root }, ['a.yaml'], 'x', 'copy'))).toBe('symlink_refused');
    expect(await codeOf(removeFileDurable({ root }, ['a.yaml'], 'rm'))).toBe('symlink_refused');
    expect(await readFile(join(outside, 'victim'), 'utf8')).toBe('keep\n');
  });

  test('a link as a folder on the way is refused, nothing written outside the root', async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await symlink(outside, join(root, 'templates'));
    expect(await codeOf(writeFileAtomic({ root }, ['templates', 'a.yaml'], 'x', 'copy'))).toBe('symlink_refused');
    expect(await readdir(outside)).toEqual([]);
  });

  test('path segments cannot climb out', async () => {
    const root = await tempDir();
    expect(await codeOf(writeFileAtomic({ root }, ['..', 'escape.yaml'], 'x', 'copy'))).toBe('invalid_name');
    expect(await codeOf(writeFileAtomic({ root }, ['a/../../b'], 'x', 'copy'))).toBe('invalid_name');
  });
});

// The lock itself (takeover, refusal, concurrent starters) is in test/root-lock.test.ts.
describe('root lock', () => {
  test('the root itself may be reached through a link; its realpath is what the library holds', async () => {
    const fx = await fixture();
    const alias = join(fx.base, 'alias');
    await symlink(fx.root, alias);
    const lib = await openLibrary({ spawner: testSpawner, root: alias, harnessDir: fx.harness, readOnlyTemplates: new Map() });
    expect(lib.root).toBe(await realpath(fx.root));
    await lib.saveTemplate('mine', tpl('mine'));
    expect(await readFile(join(fx.root, 'templates', 'mine.yaml'), 'utf8')).toBe(tpl('mine'));
    await lib.close();
  });
});

test('a templates folder that is a link is not followed: reads list the shipped templates, writes are refused with symlink_refused', async () => {
  const fx = await fixture();
  const outside = await tempDir();
  await mkdir(join(outside, 't'));
  await writeFile(join(outside, 't', 'evil.yaml'), tpl('evil'));
  await symlink(join(outside, 't'), join(fx.root, 'templates'));
  const lib = await fx.open();
  expect((await lib.listTemplates()).map((e) => e.name)).toEqual(['alpha', 'beta']);
  expect(await codeOf(lib.saveTemplate('mine', tpl('mine')))).toBe('symlink_refused');
  expect(await readdir(join(outside, 't'))).toEqual(['evil.yaml']);
  await lib.close();
});

test('close() waits for in-flight writes, then releases the lock; later writes are refused', async () => {
  const fx = await fixture();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const lib = await fx.open({ faults: (s) => (s === 'copy:rename' ? gate : undefined) });
  const saving = lib.saveTemplate('mine', tpl('mine'));
  await new Promise((r) => setTimeout(r, 20));
  let closed = false;
  const closing = lib.close().then(() => (closed = true));
  await new Promise((r) => setTimeout(r, 20));
  expect(closed).toBe(false);
  expect(await readdir(fx.root)).toContain(LOCK_FILE);
  release();
  await closing;
  expect((await saving).state).toBe('custom');
  expect(await readdir(fx.root)).not.toContain(LOCK_FILE);
  expect(await codeOf(lib.saveTemplate('other', tpl('other')))).toBe('internal');
});
