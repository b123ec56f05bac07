/**
 * Two real servers (dist/src/server.js) on two roots sharing one bare
 * repository, syncing on their own every second (DESK_SYNC_INTERVAL=1): a
 * save on A shows on B without anyone asking, and B's own save comes back to
 * A. Bounded waits, never a timed assertion; bench/sync.ts measures how long.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { call, killHard, type ServerProcess, startServer } from './proof-helpers.js';

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
