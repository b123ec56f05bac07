/**
 * A sync round is all or nothing under a crash (docs/history.md, "What
 * survives a crash"): a real server (dist/src/server.js) takes N new
 * templates from a bare repository and is killed with SIGKILL at several
 * points of the round; a teammate, in a plain `git clone`, then pushes newer
 * text for some of them; the desk restarts and syncs. No name this desk
 * never edited reads `diverged`, no commit takes the killed round's files
 * for an edit made here, every name ends at the newest text — on the desk
 * and on the remote — and `git status` and `git fsck` are clean.
 *
 * `npm test` kills once, in a round of 60; `npm run test:proof` three
 * times in a round of 400.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { call, fullProof, killHard, type ServerProcess, startServer } from './proof-helpers.js';

const N = fullProof() ? 400 : 60;
/** where in the round each kill falls, as a share of its names */
const POINTS = fullProof() ? [0.05, 0.4, 0.8] : [0.3];

let dir = '';
const servers: ServerProcess[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await killHard(s);
  if (dir) await rm(dir, { recursive: true, force: true });
});

const template = (i: number, purpose = `number ${i}`) =>
  `template:\n  name: t-${i}\n  purpose: ${purpose}\n  entry: work\n  inlet: start\nversion: 1\nnodes:\n  work: { type: model, role: reviewer, profile: read_only }\n  gate: { type: builtin, builtin: human_gate }\ncords:\n  - { from: work.done, to: gate.in }\n`;

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, '-c', 'user.name=Teammate', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();

test.each(POINTS)('a round killed at %s of its names and then restarted takes the newest text of every name and marks none diverged', { timeout: 240_000 }, async (point) => {
  dir = await mkdtemp(join(tmpdir(), 'desk-sync-kill-'));
  const bare = join(dir, 'team.git');
  execFileSync('git', ['init', '--bare', '-q', '-b', 'main', bare]);
  const tm = join(dir, 'teammate');
  execFileSync('git', ['clone', '-q', bare, tm]);
  // the teammate's N templates, pushed with plain git
  mkdirSync(join(tm, 'templates'), { recursive: true });
  for (let i = 0; i < N; i++) writeFileSync(join(tm, 'templates', `t-${i}.yaml`), template(i));
  git(tm, 'add', '-A');
  git(tm, 'commit', '-q', '-m', `${N} templates`);
  git(tm, 'push', '-q', 'origin', 'HEAD:main');

  const root = join(dir, 'a');
  const env = { DESK_LIBRARY_REMOTE: bare, DESK_SYNC_INTERVAL: '3600' };
  let a = await startServer(root, dir, env);
  servers.push(a);
  // the start's own round, or the one asked for: killed once it has written `point` of its names
  void call(a.base, 'POST', '/sync').catch(() => {});
  const give = Date.now() + 120_000;
  for (;;) {
    const s = (await call(a.base, 'GET', '/sync').catch(() => ({ body: {} }))).body as { round?: { done: number; total: number } };
    if (s.round && s.round.total > 0 && s.round.done >= Math.ceil(point * s.round.total)) break;
    if (Date.now() > give) throw new Error('the round never got that far');
    await new Promise((r) => setTimeout(r, 2));
  }
  await killHard(a);
  servers.splice(servers.indexOf(a), 1);

  // the team moves on while the desk is down
  const newer = [1, N - 1];
  for (const i of newer) writeFileSync(join(tm, 'templates', `t-${i}.yaml`), template(i, 'newer, from the teammate'));
  git(tm, 'commit', '-q', '-am', 'newer text');
  git(tm, 'push', '-q', 'origin', 'HEAD:main');

  a = await startServer(root, dir, env);
  servers.push(a);
  const st = (await call(a.base, 'POST', '/sync')).body as { diverged: string[]; last_error: string | null; ahead: number; behind: number };
  expect(st.last_error).toBeNull();
  expect(st.diverged).toEqual([]);
  for (const i of newer) expect(((await call(a.base, 'GET', `/templates/t-${i}`)).body as { source: string }).source).toBe(template(i, 'newer, from the teammate'));
  expect(((await call(a.base, 'GET', `/templates/t-${N - 2}`)).body as { source: string }).source).toBe(template(N - 2));
  const list = (await call(a.base, 'GET', '/templates')).body as { templates: { name: string }[] };
  expect(list.templates.filter((t) => t.name.startsWith('t-'))).toHaveLength(N);
  // nothing the killed round wrote was committed as found on disk; the remote keeps the teammate's newest text
  expect(git(root, 'log', '--format=%s')).not.toMatch(/found on disk: t-/);
  for (const i of newer) expect(git(bare, 'show', `main:templates/t-${i}.yaml`)).toContain('newer, from the teammate');
  expect(git(root, 'status', '--porcelain')).toBe('');
  git(root, 'fsck', '--no-dangling', '--no-progress');
});
