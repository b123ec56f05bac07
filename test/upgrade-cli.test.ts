/**
 * `desk-library upgrade` on a root saved by this build after a new release:
 * the plan, the dry run, the apply with its one commit, the exit codes.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { upgradeCommand } from '../src/cli.js';
import { openLibrary } from '../src/library/library.js';
import { type Fixture, fixture } from './http-fixture.js';
import { beforeRelease, COPY } from './upgrade-fixture.js';
import { testSpawner } from './test-spawner.js';

let fx: Fixture;

beforeEach(async () => {
  fx = await fixture();
  await beforeRelease(fx);
});
afterEach(() => fx.cleanup());

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await upgradeCommand(args, { out: (s) => (out += s), err: (s) => (err += s) }, { harnessDir: fx.harness });
  return { code, out, err };
}

const git = (...args: string[]) =>
  execFileSync('git', args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', GIT_DIR: join(fx.root!, '.git'), GIT_WORK_TREE: fx.root!, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

test('--dry-run prints the plan and writes nothing; --fail-on-skipped exits 1 when a copy needs a person', async () => {
  const r = await run('--library', fx.root!, '--dry-run');
  expect(r.code).toBe(0);
  const lines = r.out.trim().split('\n');
  expect(lines).toEqual(expect.arrayContaining(['template up-reset: reset', 'template up-clean: clean', 'template up-conflict: conflicts (1)', 'template up-invalid: invalid', 'template up-nobase: no_kept_base', 'role worker: clean']));
  expect(await fx.read('templates', 'up-clean.yaml')).toBe(COPY['up-clean']);
  expect((await run('--library', fx.root!, '--dry-run', '--fail-on-skipped')).code).toBe(1);
});

test('the apply: every reset and clean copy, one commit; json answers the plan and what was done', async () => {
  const r = await run('--library', fx.root!, '--format', 'json', '--fail-on-skipped');
  expect(r.code).toBe(1);
  const body = JSON.parse(r.out);
  expect(body.plan.templates).toHaveLength(5);
  expect(body.applied.map((a: { name: string }) => a.name)).toEqual(['up-clean', 'up-reset', 'reviewer', 'worker']);
  expect(body.skipped.map((s: { outcome: string }) => s.outcome)).toEqual(['conflicts', 'invalid', 'no_kept_base']);
  expect(await fx.read('templates', 'up-reset.yaml')).toBeNull();
  expect(git('log', '-1', '--format=%s').trim()).toBe('upgrade 4 copies to the shipped templates');
  // run again: nothing left to do automatically, and it still ran
  const again = await run('--library', fx.root!);
  expect(again.code).toBe(0);
  expect(again.out).toContain('0 upgraded, 3 skipped');
});

test('usage errors and a root held by a running service exit 2', async () => {
  expect((await run()).code).toBe(2);
  expect((await run('--library', fx.root!, '--format', 'xml')).code).toBe(2);
  expect((await run('--library', join(fx.dir, 'nowhere'))).code).toBe(2);
  const held = await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness });
  try {
    const r = await run('--library', fx.root!);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`pid ${process.pid}`);
  } finally {
    await held.close();
  }
  expect(await fx.read('templates', 'up-clean.yaml')).toBe(COPY['up-clean']);
});
