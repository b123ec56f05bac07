/**
 * Two real servers (dist/src/server.js) on two roots sharing one bare
 * repository, syncing on their own every second (DESK_SYNC_INTERVAL=1): a
 * save on A shows on B without anyone asking, and B's own save comes back to
 * A. Bounded waits, never a timed assertion; bench/sync.ts measures how long.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { call, fullProof, killHard, type ServerProcess, startServer } from './proof-helpers.js';

let dir: string;
const servers: ServerProcess[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) await killHard(s);
  await rm(dir, { recursive: true, force: true });
});

/** Polls until `check` holds; fails after 30 s (a 2-core machine shared with other jobs; a round takes well under a second when idle). */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const give = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > give) throw new Error(`${what}: not within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const source = (base: string, name: string) => call(base, 'GET', `/templates/${name}`).then((r) => (r.body as { source?: string }).source);

it('a save on one server shows on the other within its sync interval, both ways', async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-sync-proc-'));
  const bare = join(dir, 'team.git');
  execFileSync('git', ['init', '--bare', '-q', '-b', 'main', bare]);
  const env = { DESK_LIBRARY_REMOTE: bare, DESK_SYNC_INTERVAL: '1' };
  const a = await startServer(join(dir, 'a'), dir, env);
  servers.push(a);
  const b = await startServer(join(dir, 'b'), dir, env);
  servers.push(b);
  const shipped = (await source(a.base, 'quick-fix'))!;
  const fromA = shipped.replace(/purpose: .*/, 'purpose: changed on desk A');
  expect((await call(a.base, 'PUT', '/templates/quick-fix', { source: fromA })).status).toBe(200);
  await until('A on B', async () => (await source(b.base, 'quick-fix')) === fromA);
  expect((await call(b.base, 'GET', '/templates/quick-fix')).body).toMatchObject({ state: 'edited', edited_outside: false });

  const fromB = fromA.replace('purpose: changed on desk A', 'purpose: changed on desk B');
  expect((await call(b.base, 'PUT', '/templates/quick-fix', { source: fromB })).status).toBe(200);
  await until('B on A', async () => (await source(a.base, 'quick-fix')) === fromB);
  for (const s of [a, b]) {
    await until('level', async () => {
      const st = (await call(s.base, 'GET', '/sync')).body as { ahead: number; behind: number; diverged: string[]; last_error: string | null };
      return st.ahead === 0 && st.behind === 0 && st.last_error === null && st.diverged.length === 0;
    });
  }
});

/**
 * The same rules with real processes and a teammate in a plain clone
 * (docs/history.md, Sharing a library): for each order of the two desks'
 * pushes, the desk that syncs second reads `diverged`, publishes the
 * first's text, and neither operator's text is replaced; a teammate's files
 * the desks do not load survive a restart of both; a template the teammate
 * pushes that does not validate is never taken.
 */
// `npm test` runs one order; `npm run test:proof` both
it.each(fullProof() ? ['A', 'B'] : ['B'])('two real desks and a teammate: %s pushes first, nothing undecided is published, nothing of the teammate is lost', async (first) => {
  dir = await mkdtemp(join(tmpdir(), 'desk-sync-proc-'));
  const bare = join(dir, 'team.git');
  execFileSync('git', ['init', '--bare', '-q', '-b', 'main', bare]);
  // no interval round in the way: every round here is asked for, so the order is the test's
  const env = { DESK_LIBRARY_REMOTE: bare, DESK_SYNC_INTERVAL: '3600' };
  const a = await startServer(join(dir, 'a'), dir, env);
  servers.push(a);
  const b = await startServer(join(dir, 'b'), dir, env);
  servers.push(b);
  const [one, two] = first === 'A' ? [a, b] : [b, a];
  const sync = async (s: ServerProcess) => (await call(s.base, 'POST', '/sync')).body as { diverged: string[]; ignored: { path: string; reason: string }[]; last_error: string | null };
  await sync(two);
  await sync(one);
  const shipped = (await source(a.base, 'quick-fix'))!;
  const text = (who: string) => shipped.replace(/purpose: .*/, `purpose: from ${who}`);
  expect((await call(one.base, 'PUT', '/templates/quick-fix', { source: text('first') })).status).toBe(200);
  await sync(one);
  expect((await call(two.base, 'PUT', '/templates/quick-fix', { source: text('second') })).status).toBe(200);
  expect((await sync(two)).diverged).toEqual(['quick-fix']);
  await sync(one);
  expect(await source(one.base, 'quick-fix')).toBe(text('first'));
  expect(await source(two.base, 'quick-fix')).toBe(text('second'));
  const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, '-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();
  expect(git(bare, 'show', 'main:templates/quick-fix.yaml')).toBe(text('first').trim());

  // a teammate in a plain clone: a README, a draft in a subfolder, and a broken template
  const tm = join(dir, 'teammate');
  execFileSync('git', ['clone', '-q', bare, tm]);
  mkdirSync(join(tm, 'templates', 'drafts'), { recursive: true });
  writeFileSync(join(tm, 'README.md'), '# the team library\n');
  writeFileSync(join(tm, 'templates', 'drafts', 'idea.yaml'), 'later\n');
  writeFileSync(join(tm, 'templates', 'quick-fix.yaml'), 'template: [not valid\n');
  git(tm, 'add', '-A');
  git(tm, 'commit', '-q', '-m', 'by hand');
  git(tm, 'push', '-q', 'origin', 'HEAD:main');
  const st = await sync(one);
  expect(st.diverged).toEqual(['quick-fix']);
  expect(await source(one.base, 'quick-fix')).toBe(text('first'));
  expect(st.ignored).toEqual(expect.arrayContaining([{ path: 'README.md', reason: 'not_library' }, { path: 'templates/drafts/idea.yaml', reason: 'subfolder' }]));
  // both desks restart and sync again: the teammate's files are still on the remote
  for (const s of [a, b]) await killHard(s);
  servers.length = 0;
  const a2 = await startServer(join(dir, 'a'), dir, env);
  servers.push(a2);
  const b2 = await startServer(join(dir, 'b'), dir, env);
  servers.push(b2);
  for (const s of [a2, b2, a2]) expect((await sync(s)).last_error).toBeNull();
  const remoteFiles = git(bare, 'ls-tree', '-r', '--name-only', 'main').split('\n');
  expect(remoteFiles).toEqual(expect.arrayContaining(['README.md', 'templates/drafts/idea.yaml']));
  for (const root of ['a', 'b']) {
    expect(git(join(dir, root), 'log', '--format=%s')).not.toMatch(/found on disk: (quick-fix|library files)/);
    git(join(dir, root), 'fsck', '--no-dangling', '--no-progress');
  }
});
