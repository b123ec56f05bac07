/**
 * `desk-library mcp --url … --token-file …` (docs/conductor.md, Over stdio):
 * the SDK's own Client over its stdio transport starts the command, which
 * proxies to a real server process. The same tools and the same loop as over
 * HTTP, under the token file's person; DESK_TOKEN is never read.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { killChild } from './children.js';
import { type ServerProcess, startServer } from './proof-helpers.js';
import { TOKENS, writeUsers } from './users-fixture.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'desk-library.js');

let dir: string;
let server: ServerProcess;
const opened: StdioClientTransport[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-mcp-stdio-'));
  const users = await writeUsers(dir);
  await writeFile(join(dir, 'carl.token'), `${TOKENS.carl}\n`);
  await writeFile(join(dir, 'vera.token'), TOKENS.vera);
  server = await startServer(join(dir, 'root'), dir, { DESK_USERS_FILE: users });
}, 60_000);

afterAll(async () => {
  // the proxies first (each its own process), then the server, whatever happened above
  for (const t of opened) {
    await t.close().catch(() => {});
    if (t.pid) {
      try {
        process.kill(t.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
  if (server) killChild(server.child);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A client that started `desk-library mcp` with these arguments and environment. */
async function connect(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--url', server.base, ...args], env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'pipe' });
  opened.push(transport);
  const client = new Client({ name: 'desk-test-stdio-host', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const api = (method: string, path: string, body?: unknown) =>
  fetch(`${server.base}/api/desk${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKENS.ann}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const FIX = (name: string) =>
  `template:\n  name: ${name}\n  purpose: one worker, then a person looks\n  entry: work\n  inlet: start\nversion: 1\nnodes:\n  work: { type: model, role: worker, profile: read_only, prompt: "Fix it." }\n  gate: { type: builtin, builtin: human_gate }\ncords:\n  - { from: work.done, to: gate.in }\n`;

describe('over stdio, through a real server', () => {
  let carl: Client;
  beforeAll(async () => {
    carl = await connect(['--token-file', join(dir, 'carl.token')]);
  }, 60_000);

  test('tools/list: the seven tools, none that decides', async () => {
    const names = (await carl.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(['await_decision', 'draft_launch', 'get_template', 'list_templates', 'propose_template', 'validate_template', 'withdraw_launch']);
  });

  test('propose → the operator saves over HTTP → await_decision says saved with saved_as; the proposal names the conductor', async () => {
    const p = (await carl.callTool({ name: 'propose_template', arguments: { name: 'stdio-fix', purpose: 'over stdio', source: FIX('stdio-fix') } })).structuredContent as { id: string; from: string; status: string };
    expect(p).toMatchObject({ from: 'carl', status: 'pending' });
    const decided = carl.callTool({ name: 'await_decision', arguments: { id: p.id, wait_s: 30 } });
    expect((await api('POST', `/proposals/${p.id}/save`)).status).toBe(200);
    expect((await decided).structuredContent).toMatchObject({ status: 'saved', saved_as: 'stdio-fix', decided_by: 'ann' });
  });

  test('a draft of three tickets → three runs → dismissed with a note → await_decision says so', async () => {
    const d = (await carl.callTool({ name: 'draft_launch', arguments: { template: 'quick-fix', inputs: { tickets: ['A-1', 'A-2', 'A-3'] } } })).structuredContent as {
      id: string;
      from: string;
      preview: { runs: unknown[] };
    };
    expect(d.from).toBe('carl');
    expect(d.preview.runs).toHaveLength(3);
    const decided = carl.callTool({ name: 'await_decision', arguments: { id: d.id, wait_s: 30 } });
    expect((await api('POST', `/launches/${d.id}/dismiss`, { note: 'ask on the channel' })).status).toBe(200);
    expect((await decided).structuredContent).toMatchObject({ status: 'dismissed', note: 'ask on the channel' });
  });

  test('a two-line purpose and an injected {{…}} input are isError with their codes, and nothing is kept', async () => {
    const count = async (kind: string) => ((await (await api('GET', `/${kind}?status=all`)).json()) as Record<string, unknown[]>)[kind]!.length;
    const before = [await count('proposals'), await count('launches')];
    const p = await carl.callTool({ name: 'propose_template', arguments: { name: 'two', purpose: 'one\ntwo', source: FIX('two') } });
    expect(p.isError).toBe(true);
    expect((p.content as { text: string }[])[0]!.text).toContain('"purpose.multiline"');
    const l = await carl.callTool({ name: 'draft_launch', arguments: { template: 'quick-fix', inputs: { tickets: ['A-4 {{run.secret}}'] } } });
    expect(l.isError).toBe(true);
    expect((l.content as { text: string }[])[0]!.text).toContain('"input.introduces_machinery"');
    expect([await count('proposals'), await count('launches')]).toEqual(before);
  });
});

describe('the token', () => {
  test("a viewer's token file: the desk's 403 reaches the host as the request's error", async () => {
    await expect(connect(['--token-file', join(dir, 'vera.token')])).rejects.toThrow(/403/);
  }, 30_000);

  test('DESK_TOKEN is never sent; DESK_MCP_TOKEN is', async () => {
    await expect(connect([], { DESK_TOKEN: TOKENS.ann })).rejects.toThrow(/401/);
    const c = await connect([], { DESK_MCP_TOKEN: TOKENS.carl });
    expect((await c.listTools()).tools).toHaveLength(7);
  }, 30_000);
});
