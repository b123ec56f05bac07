/**
 * A real upgrade, killed: copies saved against an older release of the
 * shipped templates (a copy of harness/ with a line each, written by the
 * library itself), then the real server on today's harness, `POST
 * /api/desk/upgrade` and SIGKILL at a different instant each round. After the
 * restart every copy is either upgraded (its merge, its marker on today's
 * version) or exactly as it was; the plan lists the ones left; an upgrade
 * then finishes them; and once the service's commits land, HEAD holds what
 * is on disk.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openLibrary } from '../src/library/library.js';
import { harnessDir } from '../src/paths.js';
import { spawnChild } from './children.js';
import { call, fullProof, killHard, readOrNull, type ServerProcess, sha256, startServer } from './proof-helpers.js';
import { testSpawner } from './test-spawner.js';

/** edited copies (a line of the operator's at the top) and unedited ones */
const EDITED = ['quick-fix', 'research', 'write'] as const;
const UNEDITED = ['batch', 'mock-first'] as const;
const NAMES = [...EDITED, ...UNEDITED];
const OLDER = '# as it shipped in an older release\n';
const MINE = '# my own line\n';
/** When the server is killed: once it answered (-1, which also times a whole upgrade), then at these fractions of that time. */
const FRACTIONS = fullProof() ? [0, 0.3, 0.5, 0.7, 0.9] : [0, 0.5];

let dir: string;
let pristine: string;
let current: ServerProcess | undefined;
const today = new Map<string, string>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-upgrade-kill-'));
  const older = join(dir, 'older-harness');
  await cp(harnessDir, older, { recursive: true });
  for (const name of NAMES) {
    const text = await readFile(join(harnessDir, 'templates', `${name}.yaml`), 'utf8');
    today.set(name, text);
    await writeFile(join(older, 'templates', `${name}.yaml`), text + OLDER);
  }
  pristine = join(dir, 'pristine');
  const lib = await openLibrary({ spawner: testSpawner, root: pristine, harnessDir: older });
  for (const name of EDITED) await lib.saveTemplate(name, MINE + today.get(name)! + OLDER);
  for (const name of UNEDITED) await lib.saveTemplate(name, today.get(name)! + OLDER);
  await lib.history.settle();
  await lib.close();
});

afterAll(async () => {
  if (current) await killHard(current);
  await rm(dir, { recursive: true, force: true });
});

const gitIn = (root: string, ...args: string[]) =>
  execFileSync('git', args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', GIT_DIR: join(root, '.git'), GIT_WORK_TREE: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

/** Each name: 'old' (as saved), 'new' (upgraded), or what is wrong with it. */
async function where(root: string, name: string): Promise<string> {
  const copy = (await readOrNull(join(root, 'templates', `${name}.yaml`)))?.toString('utf8') ?? null;
  const marker = (await readOrNull(join(root, 'templates', `.${name}.shipped`)))?.toString('utf8').split('\n')[0] ?? null;
  const edited = (EDITED as readonly string[]).includes(name);
  const old = (edited ? MINE : '') + today.get(name)! + OLDER;
  const oldMarker = sha256(today.get(name)! + OLDER);
  if (copy === old && marker === oldMarker) return 'old';
  if (edited ? copy === MINE + today.get(name)! && marker === sha256(today.get(name)!) : copy === null && marker === null) return 'new';
  return `torn: copy ${copy === null ? 'absent' : sha256(copy).slice(0, 8)}, marker ${marker?.slice(0, 8) ?? 'absent'}`;
}

async function historyCaughtUp(root: string): Promise<string[]> {
  // the service commits after it answers: wait for HEAD to hold what is on disk
  let left: string[] = [];
  for (let i = 0; i < 100; i++) {
    left = gitIn(root, 'status', '--porcelain', '--', 'templates').split('\n').filter(Boolean);
    if (left.length === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return left;
}

test('SIGKILL at several instants of an upgrade: every copy upgraded or as it was, and an upgrade after finishes it', async () => {
  const seen = new Set<string>();
  const delays = [-1];
  let whole = 0;
  for (let round = 0; round < delays.length; round++) {
    const delay = delays[round]!;
    const root = join(dir, `root-${round}`);
    await cp(pristine, root, { recursive: true });
    let s = await startServer(root, dir);
    current = s;
    const sent = performance.now();
    const answered = call(s.base, 'POST', '/upgrade', {}).then(
      (r) => r.status,
      () => null,
    );
    if (delay < 0) await answered;
    else await new Promise((r) => setTimeout(r, delay));
    await killHard(s);
    const status = await answered;
    if (delay < 0) {
      expect(status).toBe(200);
      whole = performance.now() - sent;
      delays.push(...FRACTIONS.map((f) => Math.round(f * whole)));
    }

    s = await startServer(root, dir);
    current = s;
    const states = new Map<string, string>();
    for (const name of NAMES) states.set(name, await where(root, name));
    for (const [name, st] of states) expect(`round ${round}, ${delay} ms of ${Math.round(whole)}: ${name}: ${st}`).toMatch(/: (old|new)$/);
    // an answered upgrade survived whole
    if (status === 200) expect([...states.values()].every((st) => st === 'new'), `round ${round}: answered 200`).toBe(true);
    seen.add([...states.values()].join(','));

    const plan = (await call(s.base, 'GET', '/upgrade')).body as { templates: { name: string; outcome: string }[] };
    expect(plan.templates.map((t) => [t.name, t.outcome]).sort()).toEqual(
      NAMES.filter((n) => states.get(n) === 'old')
        .sort()
        .map((n) => [n, (EDITED as readonly string[]).includes(n) ? 'clean' : 'reset']),
    );
    const rest = await call(s.base, 'POST', '/upgrade', {});
    expect(rest.status).toBe(200);
    const finished = (rest.body as { applied: unknown[] }).applied.length;
    for (const name of NAMES) expect(`${name}: ${await where(root, name)}`).toBe(`${name}: new`);
    expect(await historyCaughtUp(root)).toEqual([]);
    const subjects = gitIn(root, 'log', '--format=%s').trim().split('\n');
    // a kill after the files and before the commit was queued leaves the upgrade's journal, and the start commits its one
    // entry from it: never a `found on disk` of an upgraded copy
    if (finished > 0) expect(subjects.filter((m) => /^upgrade \d+ cop(y|ies) to the shipped templates$/.test(m)).length).toBeGreaterThan(0);
    expect(subjects.filter((m) => NAMES.some((n) => m === `found on disk: ${n}`))).toEqual([]);
    s.child.kill('SIGTERM');
    await s.exited;
    current = undefined;
  }
  // the first round is after the whole upgrade, the kill at 0 ms before any write
  expect(seen.size).toBeGreaterThan(1);
}, 180_000); // three rounds of two real server starts each

const LIBRARY_JS = join(import.meta.dirname, '..', 'dist', 'src', 'library', 'library.js');

/** An upgrade of everything in a process of its own, SIGKILLed by itself the first time it reaches `step` (a fault hook's step name). */
async function upgradeKilledAt(root: string, step: string): Promise<string | null> {
  const child = spawnChild(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { openLibrary } = await import(${JSON.stringify(LIBRARY_JS)});
       const faults = (s) => { if (s === ${JSON.stringify(step)}) process.kill(process.pid, 'SIGKILL'); };
       const lib = await openLibrary({ root: ${JSON.stringify(root)}, faults });
       await lib.history.settle();
       await lib.applyUpgrade({});
       console.log('not killed');`,
    ],
    { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
}

/** The kept shipped bases of today's versions of the edited copies, as HEAD holds them. */
const basesInHead = (root: string) =>
  EDITED.filter((n) => gitIn(root, 'ls-tree', '--name-only', 'HEAD', `templates/.shipped-base/${sha256(today.get(n)!)}.yaml`).trim() !== '');

test('a kill -9 between the files and the commit: the next start commits the upgrade as its one entry, never as found on disk', async () => {
  // once every copy is renamed into place (the resets done, the batch's flush of its renames next), before the commit is
  // queued; once the resets are done and the merges' kept bases written, before any merged copy is renamed; and before
  // the first file
  for (const [step, moved] of [
    ['renames:fsync-dir', 5],
    ['base:fsync-dir', 2],
    ['intent:open', 0],
  ] as const) {
    const root = join(dir, `killed-at-${step.replace(/\W/g, '-')}`);
    await cp(pristine, root, { recursive: true });
    const before = gitIn(root, 'log', '--format=%s').trim().split('\n');
    expect(await upgradeKilledAt(root, step)).toBe('SIGKILL');
    const s = await startServer(root, dir);
    current = s;
    try {
      // the resets land before the merges' batch; a merge is all or nothing
      const expected = (name: string) => (moved === 5 || (moved === 2 && (UNEDITED as readonly string[]).includes(name)) ? 'new' : 'old');
      for (const name of NAMES) expect(`${step}: ${name}: ${await where(root, name)}`).toBe(`${step}: ${name}: ${expected(name)}`);
      expect(await historyCaughtUp(root)).toEqual([]);
      const subjects = gitIn(root, 'log', '--format=%s').trim().split('\n');
      // the kept bases the upgrade wrote are in its own entry, whether their copies moved or not: no `found on disk`
      expect(subjects.slice(0, subjects.length - before.length)).toEqual(moved ? [`upgrade ${moved} copies to the shipped templates`] : []);
      expect(basesInHead(root)).toEqual(moved ? [...EDITED] : []);
      expect(gitIn(root, 'status', '--porcelain').trim()).toBe('');
      gitIn(root, 'fsck', '--strict');
      // the journal is done with
      expect(await readOrNull(join(root, '.desk-journal', 'upgrade.intent'))).toBeNull();
      const plan = (await call(s.base, 'GET', '/upgrade')).body as { templates: unknown[] };
      expect(plan.templates.length).toBe(NAMES.filter((n) => expected(n) === 'old').length);
    } finally {
      await killHard(s);
      current = undefined;
    }
  }
}, 120_000);
