/**
 * The helper process that starts git for a library (src/library/history/spawner.ts):
 * git's parent is the helper, not the service; bytes go through whole both
 * ways; abort and timeout stop the process; a helper killed under a run
 * fails that run and the next run starts a new one; signals sent to the
 * group leave it running; close() ends it; an unclosed one never holds a
 * process open.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { gitAt } from '../src/library/history/git.js';
import { GitSpawner, type RunRequest } from '../src/library/history/spawner.js';
import { packageRoot } from '../src/paths.js';

let dir: string;
let spawner: GitSpawner;
const bins: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-spawner-'));
  const scripts = {
    // its parent's pid, and that parent's command line
    parent: '#!/bin/sh\necho "$PPID"\ntr "\\0" " " < /proc/$PPID/cmdline\n',
    cat: '#!/bin/sh\nexec cat\n',
    // long enough to be stopped; its pid first, so the test can see it gone
    sleep: '#!/bin/sh\necho $$\nexec sleep 30\n',
  };
  for (const [name, text] of Object.entries(scripts)) {
    bins[name] = join(dir, name);
    await writeFile(bins[name], text);
    await chmod(bins[name], 0o755);
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(() => spawner?.close());

const request = (bin: string, extra: Partial<RunRequest> = {}): RunRequest => ({ bin, args: [], cwd: dir, env: { PATH: process.env.PATH }, maxBuffer: 64 << 20, timeout: 0, background: false, ...extra });
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const until = async (ok: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('git is started by the helper, not by the service; one helper serves every run', async () => {
  spawner = new GitSpawner();
  const first = (await spawner.run(request(bins.parent!))).stdout.toString().split('\n');
  const second = (await spawner.run(request(bins.parent!))).stdout.toString().split('\n');
  expect(Number(first[0])).not.toBe(process.pid);
  expect(first[1]).toContain('desk-library git');
  expect(second[0]).toBe(first[0]);
  // background: nice 10 (read after a moment: the helper lowers the priority just after the start)
  const niceOf = (background: boolean) => spawner.run(request('/bin/sh', { args: ['-c', 'sleep 0.2; cut -d" " -f19 /proc/$$/stat'], background }));
  expect((await niceOf(true)).stdout.toString().trim()).toBe('10');
  expect((await niceOf(false)).stdout.toString().trim()).toBe(String(getPriority()));
  // and the library's git goes the same way: a real git through gitAt answers
  const root = join(dir, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', root]);
  const git = gitAt(root, { spawner });
  expect((await git.line(['rev-parse', '--show-object-format'])).trim()).toBe('sha1');
});

test('input and output go through whole, 5 MB each way; a missing binary is ENOENT', async () => {
  spawner = new GitSpawner();
  const bytes = randomBytes(5 << 20);
  const r = await spawner.run(request(bins.cat!, { input: bytes }));
  expect(r.error).toBeNull();
  expect(Buffer.compare(r.stdout, bytes)).toBe(0);
  const missing = await spawner.run(request(join(dir, 'no-such-git')));
  expect(missing.error?.code).toBe('ENOENT');
});

test('an abort and a timeout stop the process', async () => {
  spawner = new GitSpawner();
  const stop = new AbortController();
  const pidFile = join(dir, 'sleep.pid');
  const aborted = spawner.run(request('/bin/sh', { args: ['-c', `echo $$ > ${pidFile}; exec sleep 30`], signal: stop.signal }));
  let pid = 0;
  await until(async () => {
    pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
    return pid > 0;
  });
  stop.abort();
  expect((await aborted).error?.name).toBe('AbortError');
  await until(() => !alive(pid));
  const timed = await spawner.run(request(bins.sleep!, { timeout: 200 }));
  expect(timed.error).toMatchObject({ killed: true, signal: 'SIGKILL' });
  await until(() => !alive(Number(timed.stdout.toString().trim())));
  // aborted before it is sent: nothing runs
  expect((await spawner.run(request(bins.parent!, { signal: AbortSignal.abort() }))).error?.name).toBe('AbortError');
});

test('SIGTERM, SIGINT and SIGHUP leave the helper running; killed under a run, that run fails and the next starts a new helper', async () => {
  spawner = new GitSpawner();
  const helper = Number((await spawner.run(request(bins.parent!))).stdout.toString().split('\n')[0]);
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.kill(helper, s);
  await new Promise((r) => setTimeout(r, 100));
  expect(Number((await spawner.run(request(bins.parent!))).stdout.toString().split('\n')[0])).toBe(helper);
  const under = spawner.run(request(bins.sleep!));
  process.kill(helper, 'SIGKILL');
  await expect(under).rejects.toThrow();
  const next = Number((await spawner.run(request(bins.parent!))).stdout.toString().split('\n')[0]);
  expect(next).not.toBe(helper);
  expect(alive(next)).toBe(true);
});

test('close() lets the run under way answer, then the helper exits; a run after close is refused', async () => {
  spawner = new GitSpawner();
  const helper = Number((await spawner.run(request(bins.parent!))).stdout.toString().split('\n')[0]);
  const under = spawner.run(request('/bin/sh', { args: ['-c', 'sleep 0.3; echo done'] }));
  spawner.close();
  expect((await under).stdout.toString()).toBe('done\n');
  await until(() => !alive(helper));
  await expect(spawner.run(request(bins.parent!))).rejects.toThrow();
});

test('a process that never closes its spawner still exits when its work is done', async () => {
  const module = join(packageRoot, 'dist/src/library/history/spawner.js');
  const code = `import { GitSpawner } from ${JSON.stringify(module)};
const s = new GitSpawner();
const r = await s.run({ bin: ${JSON.stringify(bins.parent)}, args: [], cwd: '/', env: { PATH: process.env.PATH }, maxBuffer: 1 << 20, timeout: 0, background: false });
console.log(r.stdout.toString().split('\\n')[0]);`;
  const started = Date.now();
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 20_000 });
  expect(Number(out.trim())).toBeGreaterThan(0);
  expect(Date.now() - started).toBeLessThan(20_000);
  // its helper went with it
  await until(() => !alive(Number(out.trim())));
});
