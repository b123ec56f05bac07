/**
 * Throughput of one template's answer (issue 5): `GET /api/desk/templates/:name`
 * requests per second ÷ a fastify hello-world server's, both measured in this
 * run with autocannon on 127.0.0.1 (10 connections, 3 s each, run as a child
 * process so the load generator never shares the server's event loop). The
 * template asked for is an operator variant with a base, so its card carries
 * a diff — the heaviest ordinary answer.
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

interface Load {
  rps: number;
  non2xx: number;
  errors: number;
}

/** autocannon's CLI in a child process; `-j` prints one JSON result. */
async function load(url: string): Promise<Load> {
  const cli = createRequire(import.meta.url).resolve('autocannon');
  const { stdout } = await execFileP(process.execPath, [cli, '-c', String(CONNECTIONS), '-d', String(SECONDS), '-j', url], {
    maxBuffer: 16 << 20,
  });
  const r = JSON.parse(stdout) as { requests: { average: number }; non2xx: number; errors: number };
  return { rps: r.requests.average, non2xx: r.non2xx, errors: r.errors };
}

async function helloWorld(): Promise<Load> {
  const app = Fastify({ logger: false });
  app.get('/', { schema: { response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } } } }, async () => ({ hello: 'world' }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const { port } = app.server.address() as { port: number };
    await load(`http://127.0.0.1:${port}/`); // warm-up
    return await load(`http://127.0.0.1:${port}/`);
  } finally {
    await app.close();
  }
}

async function templateAnswer(root: string, name: string): Promise<Load> {
  const app = await buildApp({ libraryOptions: { root }, web: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const { port } = app.server.address() as { port: number };
    const url = `http://127.0.0.1:${port}/api/desk/templates/${name}`;
    await load(url);
    return await load(url);
  } finally {
    await app.close();
  }
}

export async function bench(): Promise<BenchRow[]> {
  const op = await makeOperatorRoot(100);
  try {
    const name = op.names.find((n) => n.startsWith('quick-fix-'))!;
    const hello = await helloWorld();
    const ours = await templateAnswer(op.root, name);
    if (ours.non2xx || ours.errors || hello.non2xx || hello.errors) throw new Error(`requests failed: ${JSON.stringify({ ours, hello })}`);
    const ratio = ours.rps / hello.rps;
    return [
      {
        name: `GET /api/desk/templates/${name} requests/s ÷ fastify hello world (autocannon, ${CONNECTIONS} connections, ${SECONDS} s, 127.0.0.1; ratio is ours ÷ baseline)`,
        value: ours.rps,
        unit: 'req/s',
        baseline: hello.rps,
        baselineName: 'hello world',
        ratio,
        goal: '≥ 0.5',
        ok: ratio >= 0.5,
      },
    ];
  } finally {
    await op.remove();
  }
}
