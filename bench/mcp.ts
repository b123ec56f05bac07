/**
 * What the MCP door costs (docs/conductor.md): a `get_template` call
 * through the desk's MCP server — the SDK's Client over its Streamable HTTP
 * transport, one connected client, each call a new server and transport on
 * the desk's side, answered as one JSON body — ÷ `GET
 * /api/desk/templates/:name` for the same template through Node's fetch
 * (undici), its body parsed as the client parses the call's, in the same run
 * against the same app on 127.0.0.1. Both answer the template with its card. p50 of 200 sequential calls each after 20
 * warm-ups, taken in interleaved blocks so a slow spell of the machine falls
 * on both.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildApp } from '../src/app.js';
import { type BenchRow, median } from './table.js';

const TEMPLATE = 'quick-fix';
const WARMUP = 20;
const CALLS = 200;
const BLOCK = 25;
const GOAL = 1.5;

export async function bench(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'desk-bench-mcp-'));
  const app = await buildApp({ libraryOptions: { root: join(dir, 'root') }, web: false });
  const client = new Client({ name: 'desk-bench', version: '1.0.0' });
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/desk/mcp`)));
    const viaMcp = async () => {
      const r = await client.callTool({ name: 'get_template', arguments: { name: TEMPLATE } });
      if (r.isError || !r.structuredContent) throw new Error(`get_template failed: ${JSON.stringify(r.content)}`);
    };
    // a caller of GET reads the template too: the MCP client hands back the parsed result, so GET's body is parsed as well
    const viaGet = async () => {
      const r = await fetch(`${base}/api/desk/templates/${TEMPLATE}`);
      if (r.status !== 200) throw new Error(`GET answered ${r.status}`);
      await r.json();
    };
    const timed = async (fn: () => Promise<void>, n: number, out: number[]) => {
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        await fn();
        out.push(performance.now() - t0);
      }
    };
    await timed(viaMcp, WARMUP, []);
    await timed(viaGet, WARMUP, []);
    const mcp: number[] = [];
    const get: number[] = [];
    for (let done = 0; done < CALLS; done += BLOCK) {
      const first = (done / BLOCK) % 2 === 0;
      await timed(first ? viaMcp : viaGet, BLOCK, first ? mcp : get);
      await timed(first ? viaGet : viaMcp, BLOCK, first ? get : mcp);
    }
    const [m, g] = [median(mcp), median(get)];
    const ratio = m / g;
    return [
      {
        name: `get_template ${TEMPLATE} via MCP (SDK Client, Streamable HTTP) ÷ GET /api/desk/templates/${TEMPLATE} (fetch), p50 of ${CALLS} sequential calls after ${WARMUP} warm-ups`,
        value: m,
        unit: 'ms',
        baseline: g,
        baselineName: 'GET',
        ratio,
        goal: `≤ ${GOAL}`,
        ok: ratio <= GOAL,
      },
    ];
  } finally {
    await client.close().catch(() => {});
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}
