/**
 * A sync round that brings thousands of names keeps the service answering
 * (docs/history.md, Sync): the remote holds N new custom templates in one
 * commit, a fresh desk syncs, and `/health` is asked every 20 ms throughout.
 * N is 3,000 at full size (`npm run test:proof`), scaled down in `npm test`;
 * the benchmark (`npm run bench -- sync`) takes 20,000.
 *
 * The bound on a single answer is generous on purpose (a busy 2-core machine
 * stalls for GC and other jobs): what it catches is the service stopping
 * for seconds, as a round did when it read each name back in one go.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { openLibrary } from '../src/library/library.js';
import { scaled } from './proof-helpers.js';
import { testSpawner } from './test-spawner.js';

const N = scaled(3000, 150);
/** no one answer of /health may take this long while the round runs */
const STALL_MS = 2000;

let base = '';
afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

const template = (i: number) =>
  `template:\n  name: t-${i}\n  purpose: number ${i}\n  entry: work\n  inlet: start\nversion: 1\nnodes:\n  work: { type: model, role: reviewer, profile: read_only }\n  gate: { type: builtin, builtin: human_gate }\ncords:\n  - { from: work.done, to: gate.in }\n`;

test(`a round bringing ${N} templates: /health answers throughout, one event, every file on disk`, async () => {
  base = await mkdtemp(join(tmpdir(), 'desk-big-round-'));
  const bare = join(base, 'remote.git');
  execFileSync('git', ['init', '--bare', '-q', '-b', 'main', bare]);
  // one commit holding N templates, made as a teammate's tool would: straight into the remote
  const parts = ['commit refs/heads/main\ncommitter t <t@example.com> 1700000000 +0000\ndata 4\nbig\n'];
  for (let i = 0; i < N; i++) {
    const t = template(i);
    parts.push(`M 100644 inline templates/t-${i}.yaml\ndata ${Buffer.byteLength(t)}\n${t}\n`);
  }
  execFileSync('git', ['--git-dir', bare, 'fast-import', '--quiet'], { input: `${parts.join('')}done\n` });

  const root = join(base, 'root');
  const library = await openLibrary({ spawner: testSpawner, root, sync: { remote: bare, intervalMs: 3_600_000, waitMs: 600_000 } });
  const app = await buildApp({ library, web: false });
  try {
    await app.ready();
    const events: string[] = [];
    library.events.subscribe((e) => events.push(e.type));
    const waits: number[] = [];
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const t = performance.now();
        const r = await app.inject({ method: 'GET', url: '/api/desk/health' });
        expect(r.statusCode).toBe(200);
        waits.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    // the start's own round may be under way: POST joins or follows it
    const r = await app.inject({ method: 'POST', url: '/api/desk/sync' });
    polling = false;
    await poll;
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ behind: 0, last_error: null, diverged: [] });
    const files = (await readdir(join(root, 'templates'))).filter((f) => /^t-\d+\.yaml$/.test(f));
    expect(files).toHaveLength(N);
    expect(Math.max(...waits)).toBeLessThan(STALL_MS);
    // one event for the round, none per name
    expect(events.filter((t) => t === 'template.changed')).toHaveLength(0);
    expect(events.filter((t) => t === 'library.synced').length).toBeGreaterThanOrEqual(1);
    expect(execFileSync('git', ['-C', root, 'status', '--porcelain'], { encoding: 'utf8' })).toBe('');
  } finally {
    await app.close();
    await library.close();
  }
}, 600_000);
