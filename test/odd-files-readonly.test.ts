/**
 * A library root this process cannot write (docs/operations.md, A read-only
 * library root): the real server starts, says so once, serves every read,
 * and refuses every write 507 library_unwritable — no lock file, no stack.
 * Two ways to get there, each skipped where the machine cannot make it:
 * a read-only bind mount (EROFS; needs root and unshare), and a root folder
 * owned by root served by `nobody` (EACCES; needs root and setpriv).
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { spawnChild } from './children.js';
import { fullProof } from './proof-helpers.js';

const SERVER = join(import.meta.dirname, '..', 'dist', 'src', 'server.js');
const GAMMA = `template:
  name: gamma
  purpose: one worker
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: implementer, profile: read_only }
cords: []
`;

/** Two real servers: run by `npm run test:proof` (PROOF_ROUNDS=50), not `npm test`; both need root. */
const isRoot = process.getuid?.() === 0;
const runs = fullProof() && isRoot;
/** A private mount namespace where a bind mount can be made read-only (a container may forbid it). */
const canMountReadOnly =
  runs &&
  spawnSync('unshare', ['--mount', 'sh', '-c', 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && ! touch "$0/probe" 2>/dev/null', tmpdir()], { stdio: 'ignore', timeout: 10_000 }).status === 0;
const canDropToNobody = runs && spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'true'], { stdio: 'ignore', timeout: 10_000 }).status === 0;

let dir: string;
let root: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-ro-'));
  // nobody must be able to reach the root (mkdtemp makes 0700)
  await chmod(dir, 0o755);
  root = join(dir, 'lib');
  await mkdir(join(root, 'templates'), { recursive: true });
  await writeFile(join(root, 'templates', 'gamma.yaml'), GAMMA);
});
afterEach(async () => {
  for (const c of children.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  base: string;
  stdout: () => string;
  exited: Promise<number | null>;
  child: ChildProcess;
}

/** Starts `command args…` (ending in the server) in a process group of its own; resolves once it listens. */
async function start(command: string, args: string[]): Promise<Run> {
  const child = spawnChild(command, args, {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', DESK_LIBRARY_ROOT: root },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    // well under a second when idle; 30 s is for a 2-core machine shared with other jobs
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 30_000);
    child.stdout!.on('data', () => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening: ${err}`));
    });
  });
  return { base, stdout: () => out, exited, child };
}

async function serveReadOnly(run: Run, code: string): Promise<void> {
  const api = `${run.base}/api/desk`;
  const lines = run
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; code?: string });
  // said once, at start, as a warning naming the errno
  expect(lines.filter((l) => l.level === 40 && l.code === code)).toHaveLength(1);
  const list = await fetch(`${api}/templates`);
  expect(list.status).toBe(200);
  expect(((await list.json()) as { templates: { name: string }[] }).templates.map((t) => t.name)).toContain('gamma');
  expect((await fetch(`${api}/templates/gamma`)).status).toBe(200);
  expect((await fetch(`${api}/health`)).status).toBe(200);
  const put = await fetch(`${api}/templates/gamma`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ source: GAMMA.replace('one worker', 'two workers') }) });
  expect([put.status, ((await put.json()) as { code: string }).code]).toEqual([507, 'library_unwritable']);
  const role = await fetch(`${api}/role`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'tester', role_md: '# Tester\n' }) });
  expect([role.status, ((await role.json()) as { code: string }).code]).toEqual([507, 'library_unwritable']);
  // nothing was written: no lock, no file
  expect((await readdir(root)).sort()).toEqual(['templates']);
  expect(await readdir(join(root, 'templates'))).toEqual(['gamma.yaml']);
  run.child.kill('SIGTERM');
  expect(await run.exited).toBe(0);
}

test.skipIf(!canMountReadOnly)('a root on a read-only mount (EROFS) is served read-only', async () => {
  const script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$1" "$2"';
  await serveReadOnly(await start('unshare', ['--mount', 'sh', '-c', script, root, process.execPath, SERVER]), 'EROFS');
});

test.skipIf(!canDropToNobody)('a root this user may not write (EACCES) is served read-only', async () => {
  await serveReadOnly(await start('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, SERVER]), 'EACCES');
});
