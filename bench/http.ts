/**
 * Throughput of one template's answer: `GET /api/desk/templates/:name`
 * requests per second ÷ a fastify hello-world server's, both measured in this
 * run with autocannon on 127.0.0.1 (10 connections, 3 s a run, two rounds
 * interleaved; autocannon runs as a child process so the load generator never
 * shares the server's event loop). Two templates: an operator variant with a
 * base, whose card carries a diff — the heaviest ordinary answer — and a
 * shipped template as it ships.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { buildApp } from '../src/app.js';
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
async function load(url: string, seconds = SECONDS): Promise<Load> {
  const cli = createRequire(import.meta.url).resolve('autocannon');
  const { stdout } = await execFileP(process.execPath, [cli, '-c', String(CONNECTIONS), '-d', String(seconds), '-j', url], {
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

export async function bench(): Promise<BenchRow[]> {
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
