/**
 * An upgrade cut short at every file step (the step and all after it fail,
 * as when the process dies there), then the library opened again: every
 * copy is either fully upgraded or exactly as it was, no intent or temp file
 * is left, and once history has caught up HEAD holds what is on disk.
 */
import { execFileSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { sha256Hex } from '../src/library/disk/markers.js';
import { openLibrary } from '../src/library/library.js';
import { fixture, type Fixture } from './http-fixture.js';
import { beforeRelease, COPY, T, UPSTREAM_NOTE, V2, WORKER_COPY } from './upgrade-fixture.js';
import { testSpawner } from './test-spawner.js';

/** The files of each copy the upgrade moves, as they read before and after a full upgrade (null: absent). */
const UPGRADED_WORKER = WORKER_COPY.replace('Asks when unsure.', 'Asks when unsure, early.');
const CLEAN_AFTER = COPY['up-clean']!.replace(/\n$/, `\n${UPSTREAM_NOTE}`);

async function snapshot(fx: Fixture): Promise<Record<string, string | null>> {
  return {
    'up-reset': await fx.read('templates', 'up-reset.yaml'),
    'up-reset.marker': await fx.read('templates', '.up-reset.shipped'),
    'up-clean': await fx.read('templates', 'up-clean.yaml'),
    'up-clean.marker': (await fx.read('templates', '.up-clean.shipped'))?.split('\n')[0] ?? null,
    reviewer: await fx.read('roles', 'reviewer', 'role.md'),
    worker: await fx.read('roles', 'worker', 'role.md'),
  };
}

async function leftovers(root: string): Promise<string[]> {
  const all = (await readdir(root, { recursive: true })) as string[];
  return all.filter((p) => !p.startsWith('.git') && /(^|\/)\.tmp-|\.intent$/.test(p));
}

const git = (root: string, ...args: string[]) =>
  execFileSync('git', args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', GIT_DIR: join(root, '.git'), GIT_WORK_TREE: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

/** Applies {} with the steps from `crashAt` on failing (-1: none); answers the steps seen. */
async function run(fx: Fixture, crashAt: number): Promise<string[]> {
  const steps: string[] = [];
  let armed = false;
  const faults = (step: string) => {
    if (!armed) return;
    steps.push(step);
    if (crashAt >= 0 && steps.length > crashAt) throw new Error(`simulated crash before ${step}`);
  };
  const lib = await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness, faults });
  await lib.history.settle();
  armed = true;
  await lib.applyUpgrade({}).catch(() => {});
  armed = false;
  await lib.close();
  return steps;
}

test('a crash before any step of an upgrade leaves every copy upgraded or as it was', async () => {
  const first = await fixture();
  await beforeRelease(first);
  const before = await snapshot(first);
  const steps = await run(first, -1);
  const after = await snapshot(first);
  await first.cleanup();
  expect(after).toEqual({
    'up-reset': null,
    'up-reset.marker': null,
    'up-clean': CLEAN_AFTER,
    'up-clean.marker': sha256Hex(V2['up-clean']!),
    reviewer: null,
    worker: UPGRADED_WORKER,
  });
  expect(before['up-reset']).toBe(T('up-reset'));
  expect(steps.length).toBeGreaterThan(6);

  // every step index, or 24 spread over them to keep the run short on a shared machine
  const points = steps.length <= 24 ? steps.map((_, i) => i) : [...new Set(Array.from({ length: 24 }, (_, i) => Math.floor((i * steps.length) / 24)))];
  const seenMixed = new Set<string>();
  for (const i of points) {
    const fx = await fixture();
    try {
      await beforeRelease(fx);
      await run(fx, i);
      const lib = await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness });
      await lib.history.settle();
      const now = await snapshot(fx);
      for (const [k, v] of Object.entries(now)) {
        expect([before[k], after[k]], `crash before step ${i} (${steps[i]}): ${k}`).toContainEqual(v);
        // a copy and its marker move together
        if (!k.endsWith('.marker') && `${k}.marker` in now) expect(v === after[k], `${k} with its marker at step ${i}`).toBe(now[`${k}.marker`] === after[`${k}.marker`]);
      }
      seenMixed.add(Object.entries(now).map(([k, v]) => (v === after[k] ? 'n' : 'o')).join(''));
      expect([i, await leftovers(fx.root!)]).toEqual([i, []]);
      // history caught up: nothing of the library differs from HEAD, kept bases included
      const status = git(fx.root!, 'status', '--porcelain', '--', 'templates', 'roles').split('\n').filter(Boolean);
      expect([i, status]).toEqual([i, []]);
      await lib.close();
    } finally {
      await fx.cleanup();
    }
  }
  // the crash points reach both ends and the middle: all old, some upgraded, all upgraded
  expect(seenMixed.has('oooooo')).toBe(true);
  expect(seenMixed.size).toBeGreaterThan(2);
}, 180_000); // two dozen fixtures, each a library saved and opened: minutes on a loaded 2-core machine
