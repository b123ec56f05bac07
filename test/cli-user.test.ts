/**
 * `desk-library user` (docs/security.md, Users and roles): add prints a new
 * token once and writes only its hash; list, remove, rotate; the file's
 * comments survive; a bad call changes nothing.
 */
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { UserDirectory } from '../src/http/users-directory.js';
import { parseUsers, tokenDigest } from '../src/http/users.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-cli-user-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(...args: string[]) {
  let out = '';
  let err = '';
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

describe('desk-library user', () => {
  it('add: the token on stdout once, its hash in the file, a new file 0600; the service knows the user by it', async () => {
    const file = join(dir, 'a.yaml');
    const r = await run('user', 'add', 'ann', '--role', 'editor', '--email', 'ann@example.org', '--users-file', file);
    expect(r.code).toBe(0);
    const token = r.out.trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(token);
    expect(parseUsers(text)).toEqual({ users: [{ name: 'ann', role: 'editor', email: 'ann@example.org', token_sha256: tokenDigest(token) }], problems: [] });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(UserDirectory.open({ file }).identify(token)).toEqual({ name: 'ann', role: 'editor', email: 'ann@example.org' });
    // two adds, two different tokens
    const r2 = await run('user', 'add', 'carl', '--role', 'conductor', '--users-file', file);
    expect(r2.code).toBe(0);
    expect(r2.out.trim()).not.toBe(token);
  });

  it('a rewrite keeps the file’s own mode and leaves no temporary file beside it', async () => {
    const sub = await mkdtemp(join(dir, 'mode-'));
    const file = join(sub, 'users.yaml');
    await writeFile(file, 'users: []\n');
    await chmod(file, 0o640);
    expect((await run('user', 'add', 'ann', '--role', 'viewer', '--users-file', file)).code).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o640);
    expect(await readdir(sub)).toEqual(['users.yaml']);
  });

  it('list shows names, roles and addresses, never a hash', async () => {
    const file = join(dir, 'b.yaml');
    await run('user', 'add', 'vera', '--role', 'viewer', '--users-file', file);
    await run('user', 'add', 'ann', '--role', 'editor', '--email', 'ann@example.org', '--users-file', file);
    const r = await run('user', 'list', '--users-file', file);
    expect(r.code).toBe(0);
    expect(r.out).toBe('vera\tviewer\t\nann\teditor\tann@example.org\n');
  });

  it('rotate: a new token works, the old one does not; remove: the user is gone; comments stay', async () => {
    const file = join(dir, 'c.yaml');
    await writeFile(file, '# the team\nusers: []\n');
    const old = (await run('user', 'add', 'bob', '--role', 'editor', '--users-file', file)).out.trim();
    await run('user', 'add', 'vera', '--role', 'viewer', '--users-file', file);
    const r = await run('user', 'rotate', 'bob', '--users-file', file);
    expect(r.code).toBe(0);
    const fresh = r.out.trim();
    const users = UserDirectory.open({ file });
    expect(users.identify(fresh)?.name).toBe('bob');
    expect(users.identify(old)).toBeUndefined();
    expect((await run('user', 'remove', 'bob', '--users-file', file)).code).toBe(0);
    expect(UserDirectory.open({ file }).identify(fresh)).toBeUndefined();
    expect(parseUsers(await readFile(file, 'utf8')).users.map((u) => u.name)).toEqual(['vera']);
    expect(await readFile(file, 'utf8')).toContain('# the team');
  });

  it('remove of the last user leaves `users: []`, which the service reads as nobody let in, and says so', async () => {
    const file = join(dir, 'last.yaml');
    await run('user', 'add', 'ann', '--role', 'editor', '--users-file', file);
    const r = await run('user', 'remove', 'ann', '--users-file', file);
    expect(r.code).toBe(0);
    expect(r.err).toContain('nobody can sign in');
    expect(parseUsers(await readFile(file, 'utf8'))).toEqual({ users: [], problems: [] });
    const users = UserDirectory.open({ file });
    expect(users.nobody).toBe(true);
    expect(users.active).toBe(true);
  });

  it.each([
    [['user'], 2],
    [['user', 'add', 'x', '--users-file', 'F'], 2], // no role
    [['user', 'add', 'x', '--role', 'admin', '--users-file', 'F'], 2],
    [['user', 'add', '9x', '--role', 'viewer', '--users-file', 'F'], 2],
    [['user', 'add', 'x', '--role', 'viewer'], 2], // no file
    [['user', 'add', 'x', '--role', 'viewer', '--email', 'nope', '--users-file', 'F'], 2],
    [['user', 'list', 'x', '--users-file', 'F'], 2],
    [['user', 'rotate', 'x', '--role', 'editor', '--users-file', 'F'], 2],
    [['user', 'promote', 'x', '--users-file', 'F'], 2],
  ])('%j is a usage error (exit %i)', async (args, code) => {
    expect((await run(...args.map((a) => (a === 'F' ? join(dir, 'never.yaml') : a)))).code).toBe(code);
  });

  it('an existing name, an unknown name, a file with problems: exit 1 and the file untouched', async () => {
    const file = join(dir, 'd.yaml');
    await run('user', 'add', 'ann', '--role', 'editor', '--users-file', file);
    const before = await readFile(file, 'utf8');
    expect((await run('user', 'add', 'ann', '--role', 'viewer', '--users-file', file)).code).toBe(1);
    expect((await run('user', 'remove', 'zed', '--users-file', file)).code).toBe(1);
    expect((await run('user', 'rotate', 'zed', '--users-file', file)).code).toBe(1);
    expect(await readFile(file, 'utf8')).toBe(before);
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'users: [{ name: x }]\n');
    expect((await run('user', 'add', 'ann', '--role', 'editor', '--users-file', bad)).code).toBe(1);
    expect(await readFile(bad, 'utf8')).toBe('users: [{ name: x }]\n');
    expect((await run('user', 'list', '--users-file', join(dir, 'missing.yaml'))).code).toBe(2);
  });

  it('user --help', async () => {
    const r = await run('user', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^usage: desk-library user add/);
  });
});
