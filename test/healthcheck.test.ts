/**
 * The container's HEALTHCHECK (Dockerfile → dist/src/healthcheck.js) against
 * the real server, set up as the image runs it: HOST=0.0.0.0, a fixed PORT
 * and DESK_TOKEN. No Docker engine runs here, so the command is read from the
 * Dockerfile and run as Docker would run it, with the container's env.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { packageRoot } from '../src/paths.js';
import { killChild, spawnChild } from './children.js';
import { fullProof } from './proof-helpers.js';
import { TOKENS, writeUsers } from './users-fixture.js';

const SERVER = join(packageRoot, 'dist', 'src', 'server.js');
const TOKEN = 'aGVhbHRoY2hlY2stdG9rZW4';

/** The exec-form HEALTHCHECK command of the Dockerfile. */
function healthcheckCommand(): string[] {
  const dockerfile = readFileSync(join(packageRoot, 'Dockerfile'), 'utf8');
  const m = /^HEALTHCHECK\b[^\n]*?(?:\\\n\s*)?CMD (\[[^\n]*\])$/m.exec(dockerfile);
  if (!m) throw new Error('no exec-form HEALTHCHECK … CMD [...] in the Dockerfile');
  return JSON.parse(m[1]!) as string[];
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Runs the Dockerfile's check from the image's working folder with `env`; its exit code. */
async function runCheck(env: Record<string, string>): Promise<number | null> {
  const [cmd, ...args] = healthcheckCommand();
  expect(cmd).toBe('node');
  const c = spawnChild(process.execPath, args, { cwd: packageRoot, env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
  return exitOf(c);
}

let server: ChildProcess | undefined;
let dir = '';
afterEach(async () => {
  if (server) killChild(server);
  server = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
});

// a real server and three checks: `npm run test:proof` (PROOF_ROUNDS=50) runs it, `npm test` has its smoke tests elsewhere
test.runIf(fullProof())('passes against a server on 0.0.0.0 with DESK_TOKEN; fails with a wrong token or no server', async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-healthcheck-'));
  const port = String(await freePort());
  const s = await listening({ PORT: port, DESK_TOKEN: TOKEN });

  expect(await runCheck({ PORT: port, DESK_TOKEN: TOKEN })).toBe(0);
  expect(await runCheck({ PORT: port, DESK_TOKEN: 'not-the-token' })).toBe(1);

  s.kill('SIGTERM');
  expect(await exitOf(s)).toBe(0);
  expect(await runCheck({ PORT: port, DESK_TOKEN: TOKEN })).toBe(1);
});

/** The server on 0.0.0.0 with `env`, listening. */
async function listening(env: Record<string, string>): Promise<ChildProcess> {
  const s = spawnChild(process.execPath, [SERVER], { env: { PATH: process.env.PATH ?? '', DESK_LIBRARY_ROOT: join(dir, 'lib'), HOST: '0.0.0.0', NODE_ENV: 'test', LOG_LEVEL: 'info', ...env } });
  server = s;
  let out = '';
  await new Promise<void>((resolve, reject) => {
    s.stdout!.on('data', (d) => {
      out += d;
      if (/Server listening at/.test(out)) resolve();
    });
    void exitOf(s).then((code) => reject(new Error(`server exited ${code}`)));
  });
  return s;
}

test.runIf(fullProof())('passes against a desk whose users come from DESK_USERS_FILE alone, with no token to send; probing locks nobody out', async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-healthcheck-'));
  const port = String(await freePort());
  const s = await listening({ PORT: port, DESK_USERS_FILE: await writeUsers(dir) });
  // more probes than the failed-authentication limit allows failures (20 a minute)
  for (let i = 0; i < 22; i++) expect(await runCheck({ PORT: port })).toBe(0);
  const me = await fetch(`http://127.0.0.1:${port}/api/desk/me`, { headers: { authorization: `Bearer ${TOKENS.vera}` } });
  expect(me.status).toBe(200);
  s.kill('SIGTERM');
  expect(await exitOf(s)).toBe(0);
  expect(await runCheck({ PORT: port })).toBe(1);
});
