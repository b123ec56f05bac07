/**
 * The real server on a root whose repository names filters, a textconv, a
 * merge driver, an fsmonitor and hooks (test/git-armed.ts), killed with
 * SIGKILL right after a save and started again: the save is committed after
 * the restart with the bytes on disk, and neither run runs a program of the
 * root (docs/security.md, What git runs). A kill proof with two real server
 * starts: it runs in `npm run test:proof` (vitest.proof.config.ts, PROOF_ONLY);
 * test/git-filters.test.ts holds the in-process cases.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { armed, gitBytes, look, statusUnfiltered } from './git-armed.js';
import { tempDir } from './library-helpers.js';
import { call, killHard, type ServerProcess, startServer } from './proof-helpers.js';

let dirs: string[] = [];
let servers: ServerProcess[] = [];

afterEach(async () => {
  // killed before their folders go (test/children.ts kills them anyway once the file is over)
  for (const s of servers) await killHard(s);
  servers = [];
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  dirs = [];
});

describe('the real server on an armed root', () => {
  it('a save answered right before a SIGKILL is committed after the restart, and neither run runs a program of the root', async () => {
    const base = await tempDir();
    dirs.push(base);
    const root = join(base, 'root');
    // armed before the first start: the service takes an existing repository as it is
    const markers = await armed(root, base);
    const first = await startServer(root, base);
    servers.push(first);
    const got = await call(first.base, 'GET', '/templates/quick-fix');
    expect(got.status).toBe(200);
    const shipped = (got.body as { source: string }).source;
    const text = shipped.replace(/^ {2}purpose: .*$/m, '  purpose: quick fix, saved right before a SIGKILL');
    expect(text).not.toBe(shipped);
    const put = await call(first.base, 'PUT', '/templates/quick-fix', { source: text }, { 'if-match': got.etag! });
    expect(put.status).toBe(200);
    // at once: the commit lands a moment after the answer (or is still queued, and the journal keeps it)
    await killHard(first);

    // the killed holder's lock is taken over: this start listens only once it holds it
    const second = await startServer(root, base);
    servers.push(second);
    const saved = () => {
      try {
        return look(root, 'log', '--format=%s', 'HEAD', '--', 'templates/quick-fix.yaml').split('\n').some((s) => s.startsWith('save quick-fix'));
      } catch {
        return false; // no HEAD yet
      }
    };
    const until = Date.now() + 20_000;
    while (!saved() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(saved(), 'the save is in history').toBe(true);
    expect(gitBytes(root, 'cat-file', 'blob', 'HEAD:templates/quick-fix.yaml').toString()).toBe(text);
    // a stop runs the service's git too
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    // before any git by hand that could run one
    expect(await readdir(markers)).toEqual([]);
    expect(statusUnfiltered(root, 'templates', 'roles', 'proposals', '.gitignore')).toBe('');
  });
});
