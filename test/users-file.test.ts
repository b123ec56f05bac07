/**
 * The users file (docs/security.md, Users and roles): what it accepts, the
 * problems it collects, and the directory read again on a change (a bad
 * file keeps the users from before); config's rules for it and the proxy.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { UserDirectory, UsersFileError } from '../src/http/users-directory.js';
import { formatUsers, parseUsers, tokenDigest } from '../src/http/users.js';
import { keptLines } from './http-fixture.js';
import { TOKENS, USERS, writeUsers } from './users-fixture.js';

const D = tokenDigest('x');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-users-file-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('parseUsers', () => {
  it('reads what formatUsers writes', () => {
    expect(parseUsers(formatUsers(USERS))).toEqual({ users: USERS, problems: [] });
    expect(parseUsers('')).toEqual({ users: [], problems: [] });
    expect(parseUsers('users: []\n')).toEqual({ users: [], problems: [] });
  });

  it('collects every problem, each at its place', () => {
    const text = `users:
  - { name: 1ann, role: editor, token_sha256: ${D} }
  - { name: bob, role: admin, token_sha256: ${D.toUpperCase()} }
  - { name: cid, role: viewer, token_sha256: ${D}, email: "not an address", extra: 1 }
  - { name: dan, role: viewer, token_sha256: ${D} }
  - { name: dan, role: viewer, token_sha256: ${tokenDigest('y')} }
`;
    const { problems } = parseUsers(text);
    const at = problems.map((p) => p.split(/[.:]/)[0]);
    expect(at).toEqual(['users[0]', 'users[1]', 'users[1]', 'users[2]', 'users[2]', 'users[4]']);
  });

  it('refuses what is not the shape: another top key, a non-list, YAML errors', () => {
    expect(parseUsers('people: []\n').problems).toHaveLength(1);
    expect(parseUsers('users: 3\n').problems).toHaveLength(1);
    expect(parseUsers('users: [\n').problems.length).toBeGreaterThan(0);
    expect(parseUsers('- a\n').problems).toHaveLength(1);
  });

  it('the same token for two users is refused', () => {
    const text = `users:\n  - { name: a, role: viewer, token_sha256: ${D} }\n  - { name: b, role: editor, token_sha256: ${D} }\n`;
    expect(parseUsers(text).problems).toHaveLength(1);
  });
});

describe('UserDirectory', () => {
  it('a malformed file refuses to open, naming the file', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'users: [{ name: x }]\n');
    expect(() => UserDirectory.open({ file })).toThrow(UsersFileError);
    expect(() => UserDirectory.open({ file: join(dir, 'missing.yaml') })).toThrow(UsersFileError);
  });

  it('reload takes a good file and keeps the old users over a bad one', async () => {
    const sub = await mkdtemp(join(dir, 'r-'));
    const file = await writeUsers(sub);
    const users = UserDirectory.open({ file });
    const { lines, stream } = keptLines();
    const { pino } = await import('pino');
    const log = pino({ level: 'info' }, stream);
    expect(users.identify(TOKENS.vera)?.role).toBe('viewer');

    await writeFile(file, formatUsers([{ ...USERS[0]!, role: 'editor' }]));
    expect(await users.reload(log)).toBe(true);
    expect(users.identify(TOKENS.vera)?.role).toBe('editor');
    expect(users.identify(TOKENS.ann)).toBeUndefined();

    await writeFile(file, 'users: [{ name: vera, role: nobody }]\n');
    expect(await users.reload(log)).toBe(false);
    expect(users.identify(TOKENS.vera)?.role).toBe('editor');
    expect(lines.some((l) => l.level === 50 && l.file === file)).toBe(true);
  });

  it('watch reads the file again when it changes', async () => {
    const sub = await mkdtemp(join(dir, 'w-'));
    const file = await writeUsers(sub);
    const users = UserDirectory.open({ file });
    const { pino } = await import('pino');
    users.watch(pino({ level: 'silent' }));
    try {
      expect(users.identify(TOKENS.carl)?.name).toBe('carl');
      await writeFile(file, formatUsers(USERS.filter((u) => u.name !== 'carl')));
      await expect.poll(() => users.identify(TOKENS.carl), { timeout: 8000, interval: 200 }).toBeUndefined();
    } finally {
      users.unwatch();
    }
  });

  it('authorOf: a user as name <email> or name <name@desk>; an address is nobody', () => {
    const users = UserDirectory.open({ token: 't' });
    expect(users.authorOf('desk')).toEqual({ name: 'desk', email: 'desk@desk' });
    expect(users.authorOf('127.0.0.1')).toBeNull();
    expect(users.authorOf('::1')).toBeNull();
    expect(users.authorOf('fe80::1')).toBeNull();
    expect(users.authorOf('zed@example.org')).toEqual({ name: 'zed', email: 'zed@example.org' });
  });
});

describe('config', () => {
  const cwd = '/srv/desk';
  it('a users file is authentication enough for a non-loopback HOST; a proxy alone is not', () => {
    expect(loadConfig({ HOST: '0.0.0.0', DESK_USERS_FILE: 'users.yaml' }, cwd).usersFile).toBe('/srv/desk/users.yaml');
    expect(() => loadConfig({ HOST: '0.0.0.0', DESK_AUTH_PROXY_HEADER: 'X-Forwarded-Email', DESK_TRUSTED_PROXIES: '10.0.0.1' }, cwd)).toThrow(ConfigError);
  });

  it('the proxy: header, trusted addresses required and checked, role', () => {
    expect(loadConfig({ DESK_AUTH_PROXY_HEADER: 'X-Forwarded-Email', DESK_TRUSTED_PROXIES: '10.0.0.1, 10.1.0.0/16 ,::1' }, cwd).authProxy).toEqual({
      header: 'X-Forwarded-Email',
      trusted: ['10.0.0.1', '10.1.0.0/16', '::1'],
      role: 'viewer',
    });
    expect(loadConfig({ DESK_AUTH_PROXY_HEADER: 'X-User', DESK_TRUSTED_PROXIES: '10.0.0.1', DESK_AUTH_PROXY_ROLE: 'conductor' }, cwd).authProxy?.role).toBe('conductor');
    for (const env of [
      { DESK_AUTH_PROXY_HEADER: 'X-User' },
      { DESK_AUTH_PROXY_HEADER: 'X-User', DESK_TRUSTED_PROXIES: 'proxy.example' },
      { DESK_AUTH_PROXY_HEADER: 'X-User', DESK_TRUSTED_PROXIES: '10.0.0.0/33' },
      { DESK_AUTH_PROXY_HEADER: 'X-User', DESK_TRUSTED_PROXIES: '10.0.0.1', DESK_AUTH_PROXY_ROLE: 'admin' },
      { DESK_AUTH_PROXY_HEADER: 'Authorization', DESK_TRUSTED_PROXIES: '10.0.0.1' },
      { DESK_AUTH_PROXY_HEADER: 'X User', DESK_TRUSTED_PROXIES: '10.0.0.1' },
    ]) {
      expect(() => loadConfig(env, cwd), JSON.stringify(env)).toThrow(ConfigError);
    }
  });
});
