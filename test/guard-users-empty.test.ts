/**
 * A users file that lists nobody, or is not a file at all (docs/security.md,
 * Users and roles): once DESK_USERS_FILE is set a request is a known person
 * or 401, so an emptied file lets nobody in, never everybody; a FIFO or a
 * link to a device is refused at the start and, on a reload, keeps the
 * users already loaded, without blocking anything.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { USERS_FILE_CAP } from '../src/http/users-file.js';
import { UserDirectory, UsersFileError } from '../src/http/users-directory.js';
import { codeOf, guardApp, SAVE, send } from './guard-fixture.js';
import { keptLines } from './http-fixture.js';
import { bearer, TOKENS, writeUsers } from './users-fixture.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-users-empty-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const EMPTY = { '0 bytes': '', 'users: []': 'users: []\n' } as const;

/** The anonymous read and save a desk with nobody known would let through; both must be 401 and run nothing. */
async function expectNobodyLetIn(users: UserDirectory): Promise<void> {
  const { app, calls } = await guardApp({ users });
  const read = await send(app, { url: '/api/desk/health', remoteAddress: '127.0.0.1' });
  expect(read.statusCode).toBe(401);
  expect(codeOf(read)).toBe('unauthorized');
  const save = await send(app, { method: 'PUT', url: '/api/desk/templates/pwned-by-anon', ...SAVE, remoteAddress: '127.0.0.1' });
  expect(save.statusCode).toBe(401);
  expect(calls()).toBe(0);
  await app.close();
}

/** A logger whose JSON lines the test reads. */
function logger() {
  const { lines, stream } = keptLines();
  return { lines, log: pino({ level: 'info' }, stream) };
}

describe('a users file that lists nobody lets nobody in', () => {
  it.each(Object.entries(EMPTY))('read at the start (%s): anonymous read and save are 401, nothing runs', async (_label, text) => {
    const file = join(dir, 'users.yaml');
    await writeFile(file, text);
    const users = UserDirectory.open({ file });
    expect(users.nobody).toBe(true);
    await expectNobodyLetIn(users);
  });

  it.each(Object.entries(EMPTY))('read again (%s) after users were known: anonymous still 401, the old tokens too', async (_label, text) => {
    const file = await writeUsers(dir);
    const users = UserDirectory.open({ file });
    await writeFile(file, text);
    const { lines, log } = logger();
    expect(await users.reload(log)).toBe(true);
    expect(users.nobody).toBe(true);
    expect(lines.some((l) => l.level === 40 && l.users === 0)).toBe(true);
    await expectNobodyLetIn(users);
    const { app } = await guardApp({ users });
    expect((await send(app, { url: '/api/desk/health', headers: bearer('ann') })).statusCode).toBe(401);
  });

  it('DESK_TOKEN beside an empty file: its desk user is known, nobody else', async () => {
    const file = join(dir, 'users.yaml');
    await writeFile(file, 'users: []\n');
    const users = UserDirectory.open({ file, token: 'the-desk-token-0123456789' });
    expect(users.nobody).toBe(false);
    const { app } = await guardApp({ users });
    expect((await send(app, { url: '/api/desk/health', headers: { authorization: 'Bearer the-desk-token-0123456789' } })).statusCode).toBe(200);
    expect((await send(app, { url: '/api/desk/health' })).statusCode).toBe(401);
  });
});

/** The odd things a users file path can name, each made in `dir`. */
const ODD: Record<string, (path: string) => Promise<void>> = {
  'a FIFO': async (path) => {
    execFileSync('mkfifo', [path]);
  },
  'a link to /dev/zero': (path) => symlink('/dev/zero', path),
  'a folder': async (path) => {
    execFileSync('mkdir', [path]);
  },
  'a file over 1 MiB': (path) => writeFile(path, `# ${'x'.repeat(USERS_FILE_CAP)}\nusers: []\n`),
};

describe('only a regular file of at most 1 MiB is read', () => {
  it.each(Object.keys(ODD))('%s refuses the start, naming the file', async (kind) => {
    const file = join(dir, 'users.yaml');
    await ODD[kind]!(file);
    const opened = (() => {
      try {
        return UserDirectory.open({ file });
      } catch (e) {
        return e;
      }
    })();
    expect(opened).toBeInstanceOf(UsersFileError);
    expect((opened as Error).message).toContain(file);
  });

  it.each(Object.keys(ODD))('%s on a reload keeps the users already loaded, at once', async (kind) => {
    const file = await writeUsers(dir);
    const users = UserDirectory.open({ file });
    await rm(file);
    await ODD[kind]!(file);
    const { lines, log } = logger();
    const since = Date.now();
    // more reloads than the thread pool has workers: one that waited on the FIFO would hold each
    for (let i = 0; i < 6; i++) expect(await users.reload(log)).toBe(false);
    expect(Date.now() - since).toBeLessThan(5_000);
    expect(lines.filter((l) => l.level === 50 && l.file === file)).toHaveLength(6);
    expect(users.identify(TOKENS.ann)?.name).toBe('ann');
    const { app } = await guardApp({ users });
    expect((await send(app, { method: 'PUT', url: '/api/desk/templates/x', ...SAVE, headers: { ...SAVE.headers, ...bearer('ann') } })).statusCode).toBe(200);
  });

  it('a link to a regular file is followed (a Kubernetes secret mount is a chain of links)', async () => {
    const real = await writeUsers(dir);
    const link = join(dir, 'linked.yaml');
    await symlink(real, link);
    expect(UserDirectory.open({ file: link }).identify(TOKENS.vera)?.name).toBe('vera');
  });
});
