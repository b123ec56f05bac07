/** History of the proposals (docs/history.md): a record kept and decided is a commit, and a proposal saved is the save's commit. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ALPHA, API, openApp } from './http-fixture.js';

const ctx = openApp();
const GAMMA = ALPHA.replaceAll('alpha', 'gamma');
const git = (root: string, ...args: string[]) =>
  execFileSync('git', args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', GIT_DIR: join(root, '.git'), GIT_WORK_TREE: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

test('a proposal kept, then saved: its record and the template each commit', async () => {
  const r = await ctx.app.inject({ method: 'POST', url: `${API}/proposals`, payload: { name: 'gamma', purpose: 'proposed', source: GAMMA, from: 'conductor-7' } });
  expect(r.statusCode).toBe(201);
  const id = r.json().id as string;
  const s = await ctx.app.inject({ method: 'POST', url: `${API}/proposals/${id}/save` });
  expect(s.statusCode).toBe(200);
  const root = ctx.fx.root!;
  // before the first commit lands (it is made in the background) git log fails: no subjects yet
  const subjects = async () => {
    try {
      return git(root, 'log', '--format=%s').trim().split('\n');
    } catch {
      return [];
    }
  };
  const until = Date.now() + 10_000;
  while (!(await subjects()).includes(`proposal ${id} saved`) && Date.now() < until) await new Promise((res) => setTimeout(res, 50));
  expect((await subjects()).slice(0, 3)).toEqual([`proposal ${id} saved`, `save gamma from proposal ${id}`, `proposal ${id} for gamma`]);
  // the proposer (here as the body named it: the desk knows nobody) beside who saved it, in one trailer block
  expect(git(root, 'log', '-1', '--format=%B', 'HEAD~1').trim()).toBe(`save gamma from proposal ${id}\n\nProposed-by: conductor-7\nWho: 127.0.0.1`);
  expect(git(root, 'log', '-1', '--format=%(trailers:key=Who,valueonly)', 'HEAD~1').trim()).toBe('127.0.0.1');
  expect(git(root, 'show', `HEAD:proposals/${id}.json`)).toContain('"saved"');
  // the index follows HEAD just after the commit lands (commit-queue.ts)
  while (git(root, 'status', '--porcelain') !== '' && Date.now() < until) await new Promise((res) => setTimeout(res, 50));
  expect(git(root, 'status', '--porcelain')).toBe('');
});
