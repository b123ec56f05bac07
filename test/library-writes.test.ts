import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openLibrary } from '../src/library/library.js';
import { roleRevision, sha256Hex } from '../src/library/disk/markers.js';
import { codeOf, fixture, rejection, tempDir, tpl } from './library-helpers.js';
import { testSpawner } from './test-spawner.js';

const V1 = tpl('alpha', 'alpha v1');
const EDIT = tpl('alpha', 'alpha edited');

/**
 * Every path under `dir`; the root lock is one entry (its holder file inside is the lock's business, test/root-lock.test.ts),
 * and the history's repository and .gitignore, made at the first start, are test/history-*.test.ts's business.
 */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((p) => !p.startsWith('.desk-library.lock/') && !/^\.git(\/|ignore$|$)/.test(p)).sort();
}

describe('template writes', () => {
  test('an invalid save → invalid_template with the problems, nothing written', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const err = await rejection(lib.saveTemplate('alpha', 'template: [\n'));
    expect(err).toMatchObject({ code: 'invalid_template' });
    expect(err.extra.problems[0]!.code).toBe('yaml.syntax');
    expect(await tree(fx.root)).toEqual(['.desk-library.lock']);
    await lib.close();
  });

  test('a header name that differs from the name saved under → invalid_template with name.mismatch', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const err = await rejection(lib.saveTemplate('alpha', tpl('beta')));
    expect(err.code).toBe('invalid_template');
    expect(err.extra.problems.map((p) => p.code)).toContain('name.mismatch');
    expect(await tree(fx.root)).toEqual(['.desk-library.lock']);
    await lib.close();
  });

  test('If-Match: the current ETag passes; a stale one → precondition_failed and nothing changes', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const first = (await lib.getTemplate('alpha'))!;
    const saved = await lib.saveTemplate('alpha', EDIT, { ifMatch: first.etag });
    expect(saved.etag).toBe(`"${sha256Hex(EDIT)}"`);
    expect(await codeOf(lib.saveTemplate('alpha', V1, { ifMatch: first.etag }))).toBe('precondition_failed');
    expect(await codeOf(lib.resetTemplate('alpha', { ifMatch: first.etag }))).toBe('precondition_failed');
    expect(await readFile(join(fx.root, 'templates', 'alpha.yaml'), 'utf8')).toBe(EDIT);
    expect(await codeOf(lib.saveTemplate('new-one', tpl('new-one'), { ifMatch: first.etag }))).toBe('precondition_failed');
    expect(await lib.getTemplate('new-one')).toBeNull();
    await lib.close();
  });

  test('20 parallel saves with the same If-Match: exactly one succeeds', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const etag = (await lib.getTemplate('alpha'))!.etag;
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => lib.saveTemplate('alpha', tpl('alpha', `edit ${i}`), { ifMatch: etag })));
    const ok = results.filter((r) => r.status === 'fulfilled');
    expect(ok).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as { code: string }).code).toBe('precondition_failed');
    const winner = (ok[0] as PromiseFulfilledResult<{ source: string }>).value.source;
    expect(await readFile(join(fx.root, 'templates', 'alpha.yaml'), 'utf8')).toBe(winner);
    expect(await readFile(join(fx.root, 'templates', '.alpha.shipped'), 'utf8')).toBe(`${sha256Hex(V1)}\ncopy ${sha256Hex(winner)}\n`);
    await lib.close();
  });

  test('reset: shipped names only; delete: custom names only', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    await lib.saveTemplate('mine', tpl('mine'));
    expect(await codeOf(lib.resetTemplate('mine'))).toBe('not_shipped');
    expect(await codeOf(lib.resetTemplate('nothing'))).toBe('not_shipped');
    expect(await codeOf(lib.deleteTemplate('alpha'))).toBe('not_custom');
    expect(await codeOf(lib.deleteTemplate('nothing'))).toBe('not_found');
    expect(await codeOf(lib.acknowledgeTemplate('nothing'))).toBe('not_found');
    await lib.deleteTemplate('mine');
    expect(await lib.getTemplate('mine')).toBeNull();
    expect(await readdir(join(fx.root, 'templates'))).toEqual([]);
    // reset of a name already shipped writes nothing and answers the shipped entry
    expect(await lib.resetTemplate('alpha')).toMatchObject({ state: 'shipped', source: V1 });
    await lib.close();
  });

  test('one log line per write: {name, before, after, who}, never the YAML', async () => {
    const fx = await fixture();
    const lines: [Record<string, unknown>, string][] = [];
    const logger = { info: (o: object, m: string) => void lines.push([o as Record<string, unknown>, m]), warn() {}, error() {} };
    const lib = await fx.open({ logger });
    await lib.saveTemplate('alpha', EDIT, { who: '127.0.0.1' });
    await lib.resetTemplate('alpha', { who: '127.0.0.1' });
    // the write lines (history adds lines of its own, without a name)
    expect(lines.filter(([o]) => 'name' in o).map(([o]) => [o.name, o.before, o.after, o.who])).toEqual([
      ['alpha', 'shipped', 'edited', '127.0.0.1'],
      ['alpha', 'edited', 'shipped', '127.0.0.1'],
    ]);
    expect(JSON.stringify(lines)).not.toContain('alpha edited');
    await lib.close();
  });

  test('ENOSPC before the copy lands → library_unwritable, nothing changed, no intent left', async () => {
    const fx = await fixture();
    let armed = false;
    const faults = (s: string) => {
      if (armed && s === 'copy:write') {
        armed = false;
        throw Object.assign(new Error('full'), { code: 'ENOSPC' });
      }
    };
    const lib = await fx.open({ faults });
    await lib.saveTemplate('alpha', EDIT);
    armed = true;
    expect(await codeOf(lib.saveTemplate('alpha', V1))).toBe('library_unwritable');
    expect(await lib.getTemplate('alpha')).toMatchObject({ state: 'edited', source: EDIT, edited_outside: false });
    expect((await readdir(join(fx.root, 'templates'))).sort()).toEqual(['.alpha.shipped', '.shipped-base', 'alpha.yaml']);
    await lib.close();
  });
});

describe('roles', () => {
  test('every built-in role in harness/ round-trips to same_as_shipped', async () => {
    const root = await tempDir();
    const lib = await openLibrary({ spawner: testSpawner, root });
    const roles = await lib.listRoles();
    expect(roles.length).toBeGreaterThan(0);
    for (const r of roles) {
      expect(r.state).toBe('shipped');
      const saved = await lib.saveRole(r.name, r.role_md, r.kit);
      expect([r.name, saved.state, saved.edited_outside]).toEqual([r.name, 'same_as_shipped', false]);
      expect(saved.etag).toBe(r.etag);
    }
    await lib.close();
  });

  test('save edited → edited with a revision marker; kit null removes kit.json; reset removes the folder', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const shipped = (await lib.getRole('worker'))!;
    const e = await lib.saveRole('worker', '  You do the work, carefully.\r\n\r\n', { tools: ['shell.run', 'workspace.read'] });
    const dir = join(fx.root, 'roles', 'worker');
    const md = 'You do the work, carefully.\n';
    const kit = '{\n  "tools": [\n    "shell.run",\n    "workspace.read"\n  ]\n}\n';
    expect(await readFile(join(dir, 'role.md'), 'utf8')).toBe(md);
    expect(await readFile(join(dir, 'kit.json'), 'utf8')).toBe(kit);
    const rev = roleRevision(Buffer.from(md), Buffer.from(kit));
    expect(await readFile(join(dir, '.shipped'), 'utf8')).toBe(`${shipped.etag.slice(1, -1)}\ncopy ${rev}\n`);
    expect(e).toMatchObject({ state: 'edited', edited_outside: false, role_md: md, kit: { tools: ['shell.run', 'workspace.read'] }, etag: `"${rev}"` });
    const nokit = await lib.saveRole('worker', md, null, { ifMatch: e.etag });
    expect(nokit).toMatchObject({ state: 'edited', kit: null });
    expect((await readdir(dir)).sort()).toEqual(['.shipped', 'role.md']);
    expect(await codeOf(lib.saveRole('worker', md, null, { ifMatch: e.etag }))).toBe('precondition_failed');
    await writeFile(join(dir, 'role.md'), 'by hand\n');
    expect(await lib.getRole('worker')).toMatchObject({ state: 'edited', edited_outside: true });
    expect(await lib.resetRole('worker')).toMatchObject({ state: 'shipped', edited_outside: false });
    // the role's folder is gone; the shipped base its copy was saved against stays, as a template's does
    expect(await readdir(join(fx.root, 'roles'))).toEqual(['.shipped-base']);
    expect(await codeOf(lib.resetRole('nobody'))).toBe('not_shipped');
    await lib.close();
  });

  test('kit presence is part of the revision: same words without the kit are not same_as_shipped', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const w = (await lib.getRole('worker'))!;
    expect((await lib.saveRole('worker', w.role_md, null)).state).toBe('edited');
    expect((await lib.saveRole('worker', w.role_md, w.kit)).state).toBe('same_as_shipped');
    await lib.close();
  });

  test('an invalid role → invalid_role with codes and paths, nothing written', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const err = await rejection(lib.saveRole('worker', '   ', { tools: ['web.fetch', 'nope', 3], extra: 1 } as never));
    expect(err.code).toBe('invalid_role');
    expect(err.extra.problems.map((p) => [p.code, p.path])).toEqual([
      ['key.missing', '/role_md'],
      ['key.unknown', '/kit/extra'],
      ['tool.unknown', '/kit/tools/1'],
      ['type.mismatch', '/kit/tools/2'],
    ]);
    expect(await codeOf(lib.saveRole('worker', 'ok', { tools: 'web.fetch' } as never))).toBe('invalid_role');
    expect(await codeOf(lib.saveRole('Bad-Name', 'ok', null))).toBe('invalid_name');
    expect(await tree(fx.root)).toEqual(['.desk-library.lock']);
    await lib.close();
  });

  test('broken role files on disk are listed with their problems', async () => {
    const fx = await fixture();
    const d = join(fx.root, 'roles');
    await mkdir(join(d, 'empty'), { recursive: true });
    await mkdir(join(d, 'badkit'));
    await writeFile(join(d, 'badkit', 'role.md'), 'words\n');
    await writeFile(join(d, 'badkit', 'kit.json'), '{not json');
    await mkdir(join(d, 'Bad-Name'));
    const lib = await fx.open();
    const roles = Object.fromEntries((await lib.listRoles()).map((r) => [r.name, r]));
    expect(Object.keys(roles).sort()).toEqual(['badkit', 'empty', 'ticket_intake', 'worker']);
    expect(roles.empty!.problems.map((p) => [p.code, p.path])).toEqual([['key.missing', '/role_md']]);
    expect(roles.badkit!.problems.map((p) => [p.code, p.path])).toEqual([['type.mismatch', '/kit']]);
    expect(roles.badkit).toMatchObject({ state: 'custom', valid: false, kit: null });
    await lib.close();
  });

  test('an operator role joins the catalogue: a template using it becomes valid on the next call', async () => {
    const fx = await fixture();
    const lib = await fx.open();
    const src = tpl('uses-new', 'uses a new role', 'analyst');
    await mkdir(join(fx.root, 'templates'));
    await writeFile(join(fx.root, 'templates', 'uses-new.yaml'), src);
    const before = (await lib.getTemplate('uses-new'))!;
    expect(before.valid).toBe(false);
    expect(before.problems.map((p) => p.code)).toContain('model.role_unknown');
    expect(await codeOf(lib.saveTemplate('uses-new', src))).toBe('invalid_template');
    expect(await lib.saveRole('analyst', 'You analyse.', null)).toMatchObject({ state: 'custom', shipped: false });
    expect((await lib.catalogue()).roles.has('analyst')).toBe(true);
    expect((await lib.getTemplate('uses-new'))!).toMatchObject({ valid: true, problems: [] });
    await lib.close();
  });
});

describe('links inside the root are refused, never followed', () => {
  test('a linked template copy: listed unreadable; save, reset and delete refuse; the target is untouched', async () => {
    const fx = await fixture();
    const outside = await tempDir();
    const victim = join(outside, 'victim.yaml');
    await writeFile(victim, 'keep\n');
    await mkdir(join(fx.root, 'templates'));
    await symlink(victim, join(fx.root, 'templates', 'alpha.yaml'));
    await symlink(victim, join(fx.root, 'templates', 'mine.yaml'));
    const lib = await fx.open();
    expect(await lib.getTemplate('alpha')).toMatchObject({ valid: false, source: '', shipped: true });
    expect(await codeOf(lib.saveTemplate('alpha', V1))).toBe('symlink_refused');
    expect(await codeOf(lib.resetTemplate('alpha'))).toBe('symlink_refused');
    expect(await codeOf(lib.saveTemplate('mine', tpl('mine')))).toBe('symlink_refused');
    expect(await codeOf(lib.deleteTemplate('mine'))).toBe('symlink_refused');
    expect(await readFile(victim, 'utf8')).toBe('keep\n');
    expect((await readdir(join(fx.root, 'templates'))).sort()).toEqual(['alpha.yaml', 'mine.yaml']);
    await lib.close();
  });

  test('a linked role folder or role file: listed unreadable, saves and resets refuse', async () => {
    const fx = await fixture();
    const outside = await tempDir();
    await writeFile(join(outside, 'role.md'), 'keep\n');
    await mkdir(join(fx.root, 'roles', 'worker'), { recursive: true });
    await symlink(join(outside, 'role.md'), join(fx.root, 'roles', 'worker', 'role.md'));
    await symlink(outside, join(fx.root, 'roles', 'ticket_intake'));
    const lib = await fx.open();
    const w = (await lib.getRole('worker'))!;
    expect(w.problems.map((p) => [p.code, p.path])).toEqual([['file.unreadable', '/role_md']]);
    expect((await lib.getRole('ticket_intake'))!.problems.map((p) => p.code)).toEqual(['file.unreadable']);
    expect(await codeOf(lib.saveRole('worker', 'new words', null))).toBe('symlink_refused');
    expect(await codeOf(lib.saveRole('ticket_intake', 'new words', null))).toBe('symlink_refused');
    expect(await codeOf(lib.resetRole('ticket_intake'))).toBe('symlink_refused');
    expect(await readdir(outside)).toEqual(['role.md']);
    expect(await readFile(join(outside, 'role.md'), 'utf8')).toBe('keep\n');
    expect(await readdir(join(fx.root, 'roles'))).toEqual(['ticket_intake', 'worker']);
    await lib.close();
  });
});
