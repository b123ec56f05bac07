/**
 * The commit queue's batching (docs/history.md, "How a write becomes a
 * commit"): under a stream of writes, one batch — three git processes — per
 * gap instead of one per write or two; a reader waiting in settle() never
 * waits out the gap. Real git, whose fast-import calls are counted and timed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { CommitQueue, GAP_MS, GC_EVERY, type Job } from '../src/library/history/commit-queue.js';
import { type Git, gitAt } from '../src/library/history/git.js';
import { GitSpawner } from '../src/library/history/spawner.js';
import { Journal } from '../src/library/history/journal.js';

let root = '';
let starts: number[] = [];
let spawner: GitSpawner;
let queue: CommitQueue;
let gcs = 0;

const quiet = { info() {}, warn() {}, error() {}, debug() {} } as never;

/** The real git, each fast-import's start time kept: one per batch. */
function counting(git: Git): Git {
  return {
    root: git.root,
    gitDir: git.gitDir,
    run: (a, o) => {
      if (a.includes('gc')) gcs++;
      return git.run(a, o);
    },
    ok: (a, o) => {
      if (a.includes('fast-import')) starts.push(performance.now());
      return git.ok(a, o);
    },
    bytes: (a, o) => git.bytes(a, o),
    line: (a, o) => git.line(a, o),
  };
}

const job = (i: number): Job => ({ snapshot: new Map([[`templates/t${i}.yaml`, Buffer.from(`n: ${i}\n`)]]), message: `save t${i}`, who: null, at: Date.now(), journal: null });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'desk-cq-'));
  execFileSync('git', ['init', '-q', '-b', 'main', root]);
  starts = [];
  gcs = 0;
  spawner = new GitSpawner();
  queue = new CommitQueue({ git: counting(gitAt(root, { spawner })), format: 'sha1', author: { name: 'desk', email: 'desk@example.invalid' }, journal: new Journal(root, quiet), logger: quiet });
});
afterEach(async () => {
  queue.close();
  spawner.close();
  await rm(root, { recursive: true, force: true });
});

const commits = () => Number(execFileSync('git', ['rev-list', '--count', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim());

test('a stream of writes lands in a batch per gap, each write its own commit', async () => {
  // a write every 20 ms for 400 ms: one batch each would be twenty sets of git processes
  for (let i = 0; i < 20; i++) {
    queue.enqueue(job(i));
    await sleep(20);
  }
  await queue.settle();
  expect(commits()).toBe(20);
  // the first after the linger, then one per gap, and the last when settle() cut its wait: never one per write
  expect(starts.length).toBeGreaterThanOrEqual(2);
  expect(starts.length).toBeLessThanOrEqual(4);
  for (let i = 1; i < starts.length - 1; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(GAP_MS - 5);
});

test('a write right after a batch waits out the gap, unless someone waits in settle()', async () => {
  queue.enqueue(job(0));
  await queue.settle();
  let t = performance.now();
  queue.enqueue(job(1));
  const landed = new Promise<void>((r) => queue.onCommit(() => r()));
  await landed;
  // nobody waiting: the batch started a gap after the last one ended
  expect(starts[1]! - t).toBeGreaterThanOrEqual(GAP_MS - 50);
  t = performance.now();
  queue.enqueue(job(2));
  await queue.settle();
  // a reader waiting: at once, not after the gap
  expect(starts[2]! - t).toBeLessThan(GAP_MS - 100);
  expect(commits()).toBe(3);
});

test('each batch is one pack, nothing loose; gc --auto every GC_EVERY batches keeps the packs few', async () => {
  const objects = () => {
    const lines = execFileSync('git', ['count-objects', '-v'], { cwd: root, encoding: 'utf8' }).trim().split('\n');
    return Object.fromEntries(lines.map((l) => [l.split(': ')[0], Number(l.split(': ')[1])]));
  };
  for (let i = 0; i < 3; i++) {
    queue.enqueue(job(i));
    await queue.settle();
  }
  // git's default would have written these few objects loose, one file and one fsync each
  expect(objects()).toMatchObject({ count: 0, packs: 3 });
  for (let i = 3; i < 2 * GC_EVERY; i++) {
    queue.enqueue(job(i));
    await queue.settle();
  }
  expect(gcs).toBe(2);
  // the first gc found GC_EVERY packs, not more than its limit; the second joined them
  expect(objects().packs).toBeLessThanOrEqual(2);
  expect(objects().count).toBe(0);
  expect(commits()).toBe(2 * GC_EVERY);
  execFileSync('git', ['fsck', '--no-dangling'], { cwd: root });
});
