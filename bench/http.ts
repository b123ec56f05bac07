/**
 * Throughput of one template's answer: `GET /api/desk/templates/:name`
 * requests per second ÷ a fastify hello-world server's, both measured in this
 * run with autocannon on 127.0.0.1 (10 connections, 3 s a run, two rounds
 * interleaved; autocannon runs as a child process so the load generator never
 * shares the server's event loop). Two templates: an operator variant with a
 * base, whose card carries a diff — the heaviest ordinary answer — and a
 * shipped template as it ships.
 *
 * And what knowing people costs (docs/security.md, Users and roles): the
 * same GET with a users file of 1,000 users ÷ with DESK_TOKEN alone, each
 * server over no library root, rounds interleaved, medians compared.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { buildApp } from '../src/app.js';
import { UserDirectory } from '../src/http/users-directory.js';
import { formatUsers, tokenDigest, type UserEntry } from '../src/http/users.js';
import { makeOperatorRoot } from './operator-root.js';
import type { BenchRow } from './table.js';

const execFileP = promisify(execFile);
const CONNECTIONS = 10;
const SECONDS = 3;
const ROUNDS = 2;

interface Load {
  rps: number;
  non2xx: number;
  errors: number;
}

/** autocannon's CLI in a child process; `-j` prints one JSON result. */
async function load(url: string, seconds = SECONDS, headers: string[] = []): Promise<Load> {
  const cli = createRequire(import.meta.url).resolve('autocannon');
  const { stdout } = await execFileP(process.execPath, [cli, '-c', String(CONNECTIONS), '-d', String(seconds), ...headers.flatMap((x) => ['-H', x]), '-j', url], {
    maxBuffer: 16 << 20,
  });
  const r = JSON.parse(stdout) as { requests: { average: number }; non2xx: number; errors: number };
  return { rps: r.requests.average, non2xx: r.non2xx, errors: r.errors };
}

/** A free loopback port: the app is built knowing its port, as src/server.ts builds it. */
async function freePort(): Promise<number> {
  const probe = Fastify();
  await probe.listen({ host: '127.0.0.1', port: 0 });
  const { port } = probe.server.address() as { port: number };
  await probe.close();
  return port;
}

const AUTH_USERS = 1000;
const AUTH_ROUNDS = 3;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** GET /templates/research with a users file of 1,000 users ÷ with DESK_TOKEN: time per request, so rps(token) ÷ rps(users). */
async function authRow(): Promise<BenchRow> {
  const dir = await mkdtemp(join(tmpdir(), 'desk-bench-users-'));
  const token = 'bench-desk-token-0123456789abcdef';
  const users: UserEntry[] = Array.from({ length: AUTH_USERS }, (_, i) => ({
    name: `user${i}`,
    role: (['viewer', 'conductor', 'editor'] as const)[i % 3]!,
    token_sha256: tokenDigest(`bench-user-token-${i}`),
    email: null,
  }));
  const file = join(dir, 'users.yaml');
  await writeFile(file, formatUsers(users));
  const [portA, portB] = [await freePort(), await freePort()];
  const withToken = await buildApp({ libraryOptions: { root: null }, web: false, port: portA, token });
  const withUsers = await buildApp({ libraryOptions: { root: null }, web: false, port: portB, users: UserDirectory.open({ file }) });
  try {
    await withToken.listen({ host: '127.0.0.1', port: portA });
    await withUsers.listen({ host: '127.0.0.1', port: portB });
    const a = { url: `http://127.0.0.1:${portA}/api/desk/templates/research`, h: [`authorization=Bearer ${token}`] };
    // the last user of the file: a lookup by digest costs the same for any of them
    const b = { url: `http://127.0.0.1:${portB}/api/desk/templates/research`, h: [`authorization=Bearer bench-user-token-${AUTH_USERS - 1}`] };
    for (const t of [a, b]) await load(t.url, 1, t.h);
    const rps: [number[], number[]] = [[], []];
    for (let round = 0; round < AUTH_ROUNDS; round++) {
      for (const [i, t] of (round % 2 ? [b, a] : [a, b]).entries()) {
        const r = await load(t.url, SECONDS, t.h);
        if (r.non2xx || r.errors) throw new Error(`requests failed on ${t.url}: ${JSON.stringify(r)}`);
        rps[(round % 2 ? 1 - i : i) as 0 | 1].push(r.rps);
      }
    }
    const [tokenRps, usersRps] = [median(rps[0]), median(rps[1])];
    const ratio = tokenRps / usersRps;
    return {
      name: `GET /api/desk/templates/research with a users file of ${AUTH_USERS} users ÷ with DESK_TOKEN, time per request (autocannon ${CONNECTIONS} connections, medians of ${AUTH_ROUNDS} × ${SECONDS} s, 127.0.0.1)`,
      value: usersRps,
      unit: 'req/s',
      baseline: tokenRps,
      baselineName: 'DESK_TOKEN',
      ratio,
      goal: '≤ 1.1',
      ok: ratio <= 1.1,
    };
  } finally {
    await withToken.close();
    await withUsers.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function bench(): Promise<BenchRow[]> {
  return [...(await templateRows()), await authRow()];
}

async function templateRows(): Promise<BenchRow[]> {
  const op = await makeOperatorRoot(100);
  const hello = Fastify({ logger: false });
  hello.get('/', { schema: { response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } } } }, async () => ({ hello: 'world' }));
  const port = await freePort();
  const app = await buildApp({ libraryOptions: { root: op.root }, web: false, port });
  try {
    await hello.listen({ host: '127.0.0.1', port: 0 });
    await app.listen({ host: '127.0.0.1', port });
    const helloUrl = `http://127.0.0.1:${(hello.server.address() as { port: number }).port}/`;
    // a custom variant with a base: its card carries a diff, the heaviest ordinary answer; and a shipped template as it ships
    const variant = op.names.find((n) => n.startsWith('quick-fix-'))!;
    const targets = [variant, 'research'];
    const urls = [helloUrl, ...targets.map((n) => `http://127.0.0.1:${port}/api/desk/templates/${n}`)];
    for (const u of urls) await load(u, 1); // warm-up
    // rounds interleaved, so a busy moment on this shared machine hits every server alike
    const sums = urls.map(() => 0);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, u] of urls.entries()) {
        const r = await load(u);
        if (r.non2xx || r.errors) throw new Error(`requests failed on ${u}: ${JSON.stringify(r)}`);
        sums[i]! += r.rps / ROUNDS;
      }
    }
    const base = sums[0]!;
    return targets.map((name, i) => {
      const rps = sums[i + 1]!;
      return {
        name: `GET /api/desk/templates/${name} requests/s ÷ fastify hello world (autocannon ${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s each, 127.0.0.1; ours ÷ baseline)`,
        value: rps,
        unit: 'req/s',
        baseline: base,
        baselineName: 'hello world',
        ratio: rps / base,
        goal: '≥ 0.5',
        ok: rps / base >= 0.5,
      };
    });
  } finally {
    await app.close();
    await hello.close();
    await op.remove();
  }
}
