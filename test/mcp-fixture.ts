/**
 * A desk with the shipped harness, a users file (one user per role) and a
 * library root, listening on 127.0.0.1, and MCP clients of it: the SDK's own
 * Client over its Streamable HTTP transport, as a host would connect.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type App, type AppOptions, buildApp } from '../src/app.js';
import { UserDirectory } from '../src/http/users-directory.js';
import { packageRoot } from '../src/paths.js';
import { TOKENS, writeUsers } from './users-fixture.js';
import { testSpawner } from './test-spawner.js';

export const HARNESS = join(packageRoot, 'harness');
export const MCP = '/api/desk/mcp';

export interface Desk {
  app: App;
  /** http://127.0.0.1:PORT */
  base: string;
  dir: string;
  /** the request log, one JSON object per line */
  log: Record<string, unknown>[];
  /** an MCP client connected as that user (no one: no token) */
  client(who?: keyof typeof TOKENS | null): Promise<Client>;
  /** a plain API call as that user */
  api(method: string, path: string, who: keyof typeof TOKENS | null, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

export async function openDesk(extra: Pick<AppOptions, 'proposals' | 'launches' | 'maxWaiters'> = {}): Promise<Desk> {
  const dir = await mkdtemp(join(tmpdir(), 'desk-mcp-'));
  const log: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) log.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const users = UserDirectory.open({ file: await writeUsers(dir) });
  const app = await buildApp({
    libraryOptions: { spawner: testSpawner, root: join(dir, 'root'), harnessDir: HARNESS, history: { author: 'Desk One <desk@one.example>' } },
    web: false,
    users,
    authRate: { max: 1_000_000 },
    logger: { level: 'info', stream },
    ...extra,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const clients: Client[] = [];
  const auth = (who: keyof typeof TOKENS | null): Record<string, string> => (who ? { authorization: `Bearer ${TOKENS[who]}` } : {});
  return {
    app,
    base,
    dir,
    log,
    async client(who = 'carl') {
      const c = new Client({ name: 'desk-test-host', version: '1.0.0' });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${base}${MCP}`), { requestInit: { headers: auth(who) } }));
      clients.push(c);
      return c;
    },
    api: (method, path, who, body) =>
      fetch(`${base}/api/desk${path}`, {
        method,
        headers: { ...auth(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    async close() {
      await Promise.allSettled(clients.map((c) => c.close()));
      await app.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A raw POST to the endpoint, as a host sends it: JSON in, JSON or an event stream back. */
export function post(base: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${MCP}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
