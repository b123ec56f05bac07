/**
 * Throughput of one template's answer: `GET /api/desk/templates/:name`
 * requests per second ÷ those of a route that sends the same answer's bytes
 * prebuilt, in the same server behind the same hooks — the real limit of
 * serving that answer here — both measured in this run with autocannon on
 * 127.0.0.1 (10 connections, 3 s a run, two rounds interleaved, no
 * Accept-Encoding; autocannon runs as a child process so the load generator
 * never shares the server's event loop). Two templates: an operator variant
 * with a base, whose card carries a diff — the heaviest ordinary answer — and
 * a shipped template as it ships. Then where each GET's CPU goes, from a
 * sampling profile (bench/get-profile-child.ts).
 *
 * And what knowing people costs (docs/security.md, Users and roles): the
 * same GET with a users file of 1,000 users ÷ with DESK_TOKEN alone, each
 * server over no library root, rounds interleaved, medians compared.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { type App, buildApp } from '../src/app.js';
import { UserDirectory } from '../src/http/users-directory.js';
import { TEMPLATE_CAP } from '../src/library/disk/fs-safe.js';
import { RACY_MS } from '../src/library/memos/entry-cache.js';
import { formatUsers, tokenDigest, type UserEntry } from '../src/http/users.js';
import type { ProfileResult } from './get-profile-child.js';
import { partsText, profileChild } from './profile-parts.js';
import { makeOperatorRoot, type OperatorRoot } from './operator-root.js';
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

/** The answer as the real route sent it: its bytes and the headers that describe them. */
interface Prebuilt {
  body: Buffer;
  headers: Record<string, string>;
}

const PREBUILT = '/api/desk/bench-prebuilt/';

/**
 * What serving one template's answer costs at least in this server: a route
 * registered here (not in src/), in the same fastify instance and so behind
 * the same onRequest hooks (host, origin, token), that sends the very bytes
 * the real route answered, with its content type and ETags, built before.
 * Its bytes are filled in once the app is ready (routes cannot be added after).
 */
function addPrebuiltRoute(app: App): Map<string, Prebuilt> {
  const kept = new Map<string, Prebuilt>();
  app.get<{ Params: { name: string } }>(`${PREBUILT}:name`, async (req, reply) => {
    const p = kept.get(req.params.name);
    if (!p) return reply.code(404).send();
    return reply.headers(p.headers).send(p.body);
  });
  return kept;
}

async function prebuild(app: App, port: number, kept: Map<string, Prebuilt>, name: string): Promise<void> {
  const r = await app.inject({ method: 'GET', url: `/api/desk/templates/${name}`, headers: { host: `127.0.0.1:${port}` } });
  if (r.statusCode !== 200) throw new Error(`GET ${name} answered ${r.statusCode}`);
  const headers: Record<string, string> = {};
  for (const h of ['content-type', 'etag', 'desk-answer-etag']) if (typeof r.headers[h] === 'string') headers[h] = r.headers[h];
  kept.set(name, { body: r.rawPayload, headers });
}

/** Where a GET's CPU goes: bench/get-profile-child.ts on the same root, after the app above let go of it. */
async function profileRow(root: string, name: string): Promise<BenchRow> {
  const p = await profileChild<ProfileResult>('get-profile-child.js', [root, name, '3000']);
  return {
    name: `where a GET /api/desk/templates/${name} spends its CPU (inject, sampling profiler, ${p.requests} requests; µs per request): ${partsText(p.parts)}`,
    value: p.usPerRequest,
    unit: 'µs',
  };
}

/**
 * `<variant>-at-cap`: the variant renamed, with comment lines after it up to
 * a few bytes under the size cap — every one an added line in its card's
 * diff. Written after the root was made, so its racy window is waited out
 * here (src/library/memos/entry-cache.ts).
 */
async function writeAtCap(op: OperatorRoot, variant: string): Promise<string> {
  const name = `${variant}-at-cap`;
  let text = (await readFile(join(op.templatesDir, `${variant}.yaml`), 'utf8')).replace(`  name: ${variant}\n`, `  name: ${name}\n`);
  for (let i = 0; Buffer.byteLength(text) < TEMPLATE_CAP - 200; i++) text += `# padding line ${String(i).padStart(5, '0')}: the operator notes how this variant differs, at length.\n`;
  await writeFile(join(op.templatesDir, `${name}.yaml`), text);
  await new Promise((r) => setTimeout(r, RACY_MS + 100));
  return name;
}

async function templateRows(): Promise<BenchRow[]> {
  const op = await makeOperatorRoot(100);
  const port = await freePort();
  const app = await buildApp({ libraryOptions: { root: op.root }, web: false, port });
  const kept = addPrebuiltRoute(app);
  // a custom variant with a base: its card carries a diff, the heaviest ordinary answer; the same at the size cap
  // (its diff against the base as large as the file); and a shipped template as it ships
  const variant = op.names.find((n) => n.startsWith('quick-fix-'))!;
  const atCap = await writeAtCap(op, variant);
  const targets = [variant, atCap, 'research'];
  const rows: BenchRow[] = [];
  try {
    await app.listen({ host: '127.0.0.1', port });
    for (const name of targets) await prebuild(app, port, kept, name);
    // each template's real route and its prebuilt bytes, side by side
    const urls = targets.flatMap((n) => [`http://127.0.0.1:${port}/api/desk/templates/${n}`, `http://127.0.0.1:${port}${PREBUILT}${n}`]);
    for (const u of urls) await load(u, 1); // warm-up
    // rounds interleaved, so a busy moment on this shared machine hits both alike
    const sums = urls.map(() => 0);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, u] of (round % 2 ? [...urls].reverse() : urls).entries()) {
        const r = await load(u);
        if (r.non2xx || r.errors) throw new Error(`requests failed on ${u}: ${JSON.stringify(r)}`);
        sums[round % 2 ? urls.length - 1 - i : i]! += r.rps / ROUNDS;
      }
    }
    for (const [i, name] of targets.entries()) {
      const [rps, base] = [sums[2 * i]!, sums[2 * i + 1]!];
      rows.push({
        name: `GET /api/desk/templates/${name} (${kept.get(name)!.body.length} bytes) requests/s ÷ the same answer's bytes prebuilt, same server and hooks (autocannon ${CONNECTIONS} connections, no Accept-Encoding, ${ROUNDS} × ${SECONDS} s each, 127.0.0.1; ours ÷ baseline)`,
        value: rps,
        unit: 'req/s',
        baseline: base,
        baselineName: 'prebuilt bytes',
        ratio: rps / base,
        goal: '≥ 0.6',
        ok: rps / base >= 0.6,
      });
    }
  } finally {
    await app.close();
  }
  try {
    for (const name of targets) rows.push(await profileRow(op.root, name));
  } finally {
    await op.remove();
  }
  return rows;
}
