/**
 * The real process with a users file (dist/src/server.js; docs/security.md,
 * Users and roles): SIGHUP reads the file again and does not stop the
 * service; a bad file on SIGHUP keeps the users; a bad file at the start
 * refuses it; no token ever appears in the log of a run that used them.
 * A file that lists nobody lets nobody in, and refuses a non-loopback start;
 * a FIFO or a device is never read, at the start or on a SIGHUP.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { formatUsers } from '../src/http/users.js';
import { killChild, spawnChild } from './children.js';
import { tpl } from './library-helpers.js';
import { call, killHard, SERVER_JS, startServer } from './proof-helpers.js';
import { TOKENS, USERS, writeUsers } from './users-fixture.js';

const DESK_TOKEN = 'the-desk-token-0123456789-abcdef';
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-server-users-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

test('SIGHUP reloads the users file (a bad one keeps the users), the service keeps running, and no token is logged', async () => {
  const file = await writeUsers(dir);
  const s = await startServer(join(dir, 'lib'), dir, { DESK_USERS_FILE: file, DESK_TOKEN, LOG_LEVEL: 'debug' });
  try {
    expect((await call(s.base, 'GET', '/me', undefined, auth(TOKENS.vera))).body).toEqual({ name: 'vera', role: 'viewer' });
    expect((await call(s.base, 'GET', '/me', undefined, auth(DESK_TOKEN))).body).toEqual({ name: 'desk', role: 'editor' });
    expect((await call(s.base, 'GET', '/me')).status).toBe(401);
    expect((await call(s.base, 'GET', `/health?token=${TOKENS.carl}`)).status).toBe(401);
    expect((await call(s.base, 'GET', '/me', undefined, auth(`${TOKENS.ann}x`))).status).toBe(401);
    expect((await call(s.base, 'PUT', '/templates/mine', { source: tpl('mine', 'by ann') }, auth(TOKENS.ann))).status).toBe(200);
    expect((await call(s.base, 'PUT', '/templates/mine', { source: tpl('mine', 'by vera') }, auth(TOKENS.vera))).status).toBe(403);

    // vera becomes an editor: same size, same inode, the old mtime put back, so only the signal can tell
    const before = await stat(file);
    const text = await readFile(file, 'utf8');
    await writeFile(file, formatUsers(USERS.map((u) => (u.name === 'vera' ? { ...u, role: 'editor' } : u))));
    expect((await readFile(file, 'utf8')).length).toBe(text.length);
    await utimes(file, before.atime, before.mtime);
    s.child.kill('SIGHUP');
    await expect.poll(async () => (await call(s.base, 'GET', '/me', undefined, auth(TOKENS.vera))).body, { timeout: 10_000 }).toEqual({ name: 'vera', role: 'editor' });

    // a broken file: refused, logged, the users stay
    await writeFile(file, 'users: [{ name: vera, role: nobody }]\n');
    s.child.kill('SIGHUP');
    await expect.poll(() => s.stdout().includes('users file refused'), { timeout: 10_000 }).toBe(true);
    expect((await call(s.base, 'GET', '/me', undefined, auth(TOKENS.vera))).body).toEqual({ name: 'vera', role: 'editor' });
    expect(s.child.exitCode).toBeNull();

    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    const log = s.stdout() + s.stderr();
    expect(log).toContain('"user":"ann"');
    for (const t of [DESK_TOKEN, ...Object.values(TOKENS)]) expect(log.includes(t), 'a token in the log').toBe(false);
  } finally {
    await killHard(s);
  }
});

test('a malformed users file refuses the start, exit 1, naming the file', async () => {
  const file = join(dir, 'users.yaml');
  await writeFile(file, 'users:\n  - name: 9lives\n    role: editor\n');
  const child = spawnChild(process.execPath, [SERVER_JS], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', PORT: '0', DESK_LIBRARY_ROOT: join(dir, 'lib'), DESK_USERS_FILE: file },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  expect(code).toBe(1);
  expect(err).toContain(file);
});

/** Starts the real server and answers its exit code and stderr; killed in every case (children.ts). */
async function refusedStart(env: Record<string, string>): Promise<{ code: number | null; err: string }> {
  const child = spawnChild(process.execPath, [SERVER_JS], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', PORT: '0', DESK_LIBRARY_ROOT: join(dir, 'lib'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const timer = setTimeout(() => killChild(child), 30_000);
  try {
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    return { code, err };
  } finally {
    clearTimeout(timer);
    killChild(child);
  }
}

test('a users file that lists nobody refuses a non-loopback start, exit 1 naming the file, and binds nothing', async () => {
  // both starts at once: each is a whole Node start, and they share nothing but the root they must not make
  const files = ['', 'users: []\n'].map((text, i) => ({ text, file: join(dir, `users-${i}.yaml`) }));
  for (const { text, file } of files) await writeFile(file, text);
  const results = await Promise.all(files.map(({ file }) => refusedStart({ DESK_USERS_FILE: file, HOST: '0.0.0.0' })));
  files.forEach(({ text, file }, i) => {
    expect(results[i]!.code, JSON.stringify(text)).toBe(1);
    expect(results[i]!.err).toContain(file);
  });
  await expect(stat(join(dir, 'lib'))).rejects.toMatchObject({ code: 'ENOENT' });
});

test('a FIFO or a link to /dev/zero as the users file refuses the start, exit 1 naming the file', async () => {
  const fifo = join(dir, 'fifo.yaml');
  execFileSync('mkfifo', [fifo]);
  const zero = join(dir, 'zero.yaml');
  await symlink('/dev/zero', zero);
  // both starts at once: one that waited on its FIFO would never exit, and be killed at 30 s (code null)
  const results = await Promise.all([fifo, zero].map((file) => refusedStart({ DESK_USERS_FILE: file })));
  [fifo, zero].forEach((file, i) => {
    expect(results[i]!.code, file).toBe(1);
    expect(results[i]!.err).toContain(file);
  });
});

test('on loopback a file that lists nobody starts, warned; anonymous saves are 401 and write nothing', async () => {
  const file = join(dir, 'users.yaml');
  await writeFile(file, 'users: []\n');
  const root = join(dir, 'lib');
  const s = await startServer(root, dir, { DESK_USERS_FILE: file });
  try {
    expect(s.stdout()).toContain('lists nobody');
    expect((await call(s.base, 'PUT', '/templates/pwned-by-anon', { source: tpl('pwned-by-anon', 'anon') })).status).toBe(401);
    expect((await call(s.base, 'GET', '/templates')).status).toBe(401);
    await expect(stat(join(root, 'templates', 'pwned-by-anon.yaml'))).rejects.toMatchObject({ code: 'ENOENT' });
  } finally {
    await killHard(s);
  }
});

test('the users file replaced by a FIFO, then a link to /dev/zero: SIGHUPs keep the users, saves answer, SIGTERM stops', async () => {
  const file = await writeUsers(dir);
  const s = await startServer(join(dir, 'lib'), dir, { DESK_USERS_FILE: file });
  try {
    const save = async (n: number) => (await call(s.base, 'PUT', `/templates/kept-${n}`, { source: tpl(`kept-${n}`, `save ${n}`) }, auth(TOKENS.ann))).status;
    expect(await save(0)).toBe(200);
    const notRead = () => (s.stdout().match(/users file not read/g) ?? []).length;
    let n = 0;
    for (const make of [() => execFileSync('mkfifo', [file]), () => symlink('/dev/zero', file)]) {
      await rm(file);
      await make();
      // more reloads than the thread pool has workers: each that waited on the FIFO would hold one. One
      // signal at a time, each seen before the next: signals sent together arrive as one
      for (let i = 0; i < 6; i++) {
        const before = notRead();
        s.child.kill('SIGHUP');
        await expect.poll(notRead, { timeout: 10_000 }).toBeGreaterThan(before);
      }
      expect(await save(++n)).toBe(200);
      expect((await call(s.base, 'GET', '/me', undefined, auth(TOKENS.vera))).body).toEqual({ name: 'vera', role: 'viewer' });
      expect((await call(s.base, 'GET', '/me')).status).toBe(401);
    }
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  } finally {
    await killHard(s);
  }
});
