/**
 * The first start of this release finishes what the previous one left
 * (docs/architecture.md, "Crash records"). The release before the journal
 * (commit 9dc2f91, built here from git) kept its crash records under
 * `.git/`: `desk-upgrade.json`, `desk-round.json`, `desk-history/pending/`.
 * Here that build is SIGKILLed mid-upgrade, mid-round, and between a save's
 * answer and its commit; the killed root is copied twice, the old build
 * restarted on one copy and this build on the other, and both must end with
 * the same files, markers, history (subjects and HEAD's tree) — this build
 * with no record of the old kind left.
 *
 * Building the old release takes a while, so this runs in `npm run
 * test:proof` only.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, symlinkSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { harnessDir } from '../src/paths.js';
import { runSync, spawnChild } from './children.js';
import { call, fullProof, killHard, type ServerProcess, snapshotTree, startServer } from './proof-helpers.js';

/** The last commit of the release before the journal: in every clone of main. */
const OLD = '9dc2f91';
const REPO = join(import.meta.dirname, '..');

let dir = '';
let oldDist = '';
const servers: ServerProcess[] = [];

/**
 * The old release's dist/, built once per clone into the temp folder (its node_modules is this clone's), renamed into
 * place whole, so a concurrent run reuses it.
 */
function buildOld(): string {
  const done = join(tmpdir(), `desk-library-release-${OLD}-${createHash('sha256').update(REPO).digest('hex').slice(0, 12)}`);
  if (existsSync(join(done, 'dist', 'src', 'server.js'))) return join(done, 'dist');
  const work = `${done}.tmp-${process.pid}`;
  mkdirSync(work, { recursive: true });
  execFileSync('git', ['-C', REPO, 'archive', '--format=tar', '-o', join(work, 'src.tar'), OLD]);
  execFileSync('tar', ['-xf', join(work, 'src.tar'), '-C', work]);
  symlinkSync(join(REPO, 'node_modules'), join(work, 'node_modules'));
  const r = runSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { cwd: work, encoding: 'utf8' });
  if (!existsSync(join(work, 'dist', 'src', 'server.js'))) throw new Error(`the release at ${OLD} did not build: ${r.stdout}${r.stderr}`);
  try {
    renameSync(work, done);
  } catch {
    // another run built it first
  }
  return join(done, 'dist');
}

beforeAll(async () => {
  if (!fullProof()) return;
  dir = await mkdtemp(join(tmpdir(), 'desk-journal-legacy-'));
  oldDist = buildOld();
}, 300_000);

afterAll(async () => {
  for (const s of servers.splice(0)) await killHard(s);
  if (dir) await rm(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-C', cwd, '-c', 'user.name=Teammate', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).trim();

/** A server of the old build (`old`) or this one. */
async function start(which: 'old' | 'new', root: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const s = await startServer(root, dir, env, which === 'old' ? join(oldDist, 'src', 'server.js') : undefined);
  servers.push(s);
  return s;
}

async function stop(s: ServerProcess): Promise<void> {
  s.child.kill('SIGTERM');
  await s.exited;
  servers.splice(servers.indexOf(s), 1);
}

/** A script of the old build's library (`lib`, opened with `open`'s options) in a process of its own; its signal when it was killed, else null. */
async function oldScript(open: string, body: string): Promise<string | null> {
  const child = spawnChild(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { openLibrary } = await import(${JSON.stringify(join(oldDist, 'src', 'library', 'library.js'))});
       // a script that never reaches its kill must not hang the proof
       setTimeout(() => process.exit(3), 60_000).unref();
       const lib = await openLibrary(${open});
       ${body}`,
    ],
    { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? (code === 0 ? null : `exit ${code}`))));
}

/** The root's files (the journal and the lock aside), HEAD's tree, and the subjects of its history, once history holds what is on disk. */
async function outcome(root: string): Promise<{ files: Map<string, string>; tree: string; subjects: string[] }> {
  for (let i = 0; i < 100 && git(root, 'status', '--porcelain') !== ''; i++) await new Promise((r) => setTimeout(r, 100));
  expect(git(root, 'status', '--porcelain')).toBe('');
  const files = new Map([...(await snapshotTree(root))].filter(([p]) => /^(templates|roles)\//.test(p)));
  return { files, tree: git(root, 'rev-parse', 'HEAD^{tree}'), subjects: git(root, 'log', '--format=%s').split('\n') };
}

/** What the old build left under `.git/`, and what is left of the journal. */
async function records(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const p of ['.git/desk-upgrade.json', '.git/desk-round.json']) if (existsSync(join(root, p))) found.push(p);
  for (const n of await readdir(join(root, '.git', 'desk-history', 'pending')).catch(() => [])) found.push(`.git/desk-history/pending/${n}`);
  for (const n of await readdir(join(root, '.desk-journal')).catch(() => [])) found.push(`.desk-journal/${n}`);
  for (const t of await readdir(join(root, 'templates')).catch(() => [])) if (t.endsWith('.intent')) found.push(`templates/${t}`);
  return found;
}

/** The killed root restarted by the old build and by this one, side by side: the same outcome, and nothing left to finish in either. */
async function sameAsOld(killed: string, env: (which: 'old' | 'new') => Record<string, string>, then: (s: ServerProcess) => Promise<void> = async () => {}, after: () => Promise<void> = async () => {}): Promise<void> {
  const a = `${killed}-old`;
  const b = `${killed}-new`;
  await cp(killed, a, { recursive: true });
  await cp(killed, b, { recursive: true });
  const sa = await start('old', a, env('old'));
  await then(sa);
  const want = await outcome(a);
  await stop(sa);
  await after();
  const sb = await start('new', b, env('new'));
  await then(sb);
  const got = await outcome(b);
  await stop(sb);
  await after();
  expect(got.subjects).toEqual(want.subjects);
  expect(got.tree).toBe(want.tree);
  expect(got.files).toEqual(want.files);
  expect(await records(b)).toEqual([]);
  expect(await records(a)).toEqual([]);
}

test.skipIf(!fullProof())('killed mid-upgrade and between a save and its commit by the old build: this build finishes both as the old one would', async () => {
  // copies saved against an older release of the shipped templates, as upgrade-kill.test.ts makes them
  const older = join(dir, 'older-harness');
  await cp(harnessDir, older, { recursive: true });
  const names = ['quick-fix', 'research', 'batch'];
  for (const n of names) await writeFile(join(older, 'templates', `${n}.yaml`), (await readFile(join(harnessDir, 'templates', `${n}.yaml`), 'utf8')) + '# older\n');
  const root = join(dir, 'upgrade');
  const J = JSON.stringify;
  const saves = names.map((n) => `await lib.saveTemplate(${J(n)}, ${J(n === 'quick-fix' ? '# mine\n' : '')} + readFileSync(${J(join(older, 'templates', `${n}.yaml`))}, 'utf8'));`);
  expect(await oldScript(`{ root: ${J(root)}, harnessDir: ${J(older)} }`, `const { readFileSync } = await import('node:fs');\n${saves.join('\n')}\nawait lib.history.settle(); await lib.close();`)).toBeNull();
  // the old build on today's harness: a save answered whose commit never lands (its job left queued), then an upgrade
  // killed once its copies are renamed into place, before its own commit is queued
  const written = 'template:\n  name: write\n  purpose: left queued\n  entry: w\n  inlet: start\nversion: 1\nnodes:\n  w: { type: model, role: reviewer, profile: read_only }\n  gate: { type: builtin, builtin: human_gate }\ncords:\n  - { from: w.done, to: gate.in }\n';
  const open = `{ root: ${J(root)},
    faults: (s) => { if (armed && s === 'renames:fsync-dir') process.kill(process.pid, 'SIGKILL'); },
    history: { faults: (s) => (hang && s === 'fast-import' ? new Promise(() => {}) : undefined) } }`;
  expect(await oldScript(`(globalThis.armed = false, globalThis.hang = false, ${open})`, `await lib.history.settle(); hang = true; await lib.saveTemplate('write', ${J(written)}); armed = true; await lib.applyUpgrade({});`)).toBe('SIGKILL');
  const left = await records(root);
  expect(left).toContain('.git/desk-upgrade.json');
  expect(left.some((p) => p.startsWith('.git/desk-history/pending/'))).toBe(true);
  await sameAsOld(root, () => ({}));
}, 240_000);

const template = (i: number, purpose = `number ${i}`) =>
  `template:\n  name: t-${i}\n  purpose: ${purpose}\n  entry: work\n  inlet: start\nversion: 1\nnodes:\n  work: { type: model, role: reviewer, profile: read_only }\n  gate: { type: builtin, builtin: human_gate }\ncords:\n  - { from: work.done, to: gate.in }\n`;

test.skipIf(!fullProof())('killed mid-round by the old build: this build rolls the round forward as the old one would', async () => {
  const N = 60;
  const bare = join(dir, 'team.git');
  execFileSync('git', ['init', '--bare', '-q', '-b', 'main', bare]);
  const tm = join(dir, 'teammate');
  execFileSync('git', ['clone', '-q', bare, tm]);
  mkdirSync(join(tm, 'templates'), { recursive: true });
  for (let i = 0; i < N; i++) await writeFile(join(tm, 'templates', `t-${i}.yaml`), template(i));
  git(tm, 'add', '-A');
  git(tm, 'commit', '-q', '-m', `${N} templates`);
  git(tm, 'push', '-q', 'origin', 'HEAD:main');

  const root = join(dir, 'round');
  const s = await start('old', root, { DESK_LIBRARY_REMOTE: bare, DESK_SYNC_INTERVAL: '3600' });
  void call(s.base, 'POST', '/sync').catch(() => {});
  const give = Date.now() + 120_000;
  for (;;) {
    const st = (await call(s.base, 'GET', '/sync').catch(() => ({ body: {} }))).body as { round?: { done: number; total: number } };
    if (st.round && st.round.total > 0 && st.round.done >= Math.ceil(0.3 * st.round.total)) break;
    if (Date.now() > give) throw new Error('the round never got that far');
    await new Promise((r) => setTimeout(r, 2));
  }
  await killHard(s);
  servers.splice(servers.indexOf(s), 1);
  expect(await records(root)).toContain('.git/desk-round.json');

  // the team moves on while the desk is down; each restart syncs with its own copy of the remote
  for (const i of [1, N - 1]) await writeFile(join(tm, 'templates', `t-${i}.yaml`), template(i, 'newer, from the teammate'));
  git(tm, 'commit', '-q', '-am', 'newer text');
  git(tm, 'push', '-q', 'origin', 'HEAD:main');
  // each restart syncs with the remote as the team left it (at the same path: a merge's subject names it)
  await cp(bare, `${bare}-as-left`, { recursive: true });
  const tips: string[] = [];
  await sameAsOld(
    root,
    () => ({ DESK_LIBRARY_REMOTE: bare, DESK_SYNC_INTERVAL: '3600' }),
    async (srv) => {
      const st = (await call(srv.base, 'POST', '/sync')).body as { diverged: string[]; last_error: string | null };
      expect(st).toMatchObject({ diverged: [], last_error: null });
    },
    async () => {
      tips.push(git(bare, 'rev-parse', 'main^{tree}'));
      await rm(bare, { recursive: true, force: true });
      await cp(`${bare}-as-left`, bare, { recursive: true });
    },
  );
  expect(tips[1]).toBe(tips[0]);
}, 240_000);
