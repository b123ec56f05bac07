/**
 * `desk-library mcp --url URL [--token-file FILE]` (docs/conductor.md, Over
 * stdio): for an MCP host that only starts local processes. A JSON-RPC
 * proxy between stdio and the desk's `POST /api/desk/mcp`: each message read
 * on stdin is sent to the desk, each answer and notification written to
 * stdout, so the tools are defined once, in the service. It never opens a
 * library root itself. The token comes from the file, else
 * DESK_MCP_TOKEN — never DESK_TOKEN, which on a server is the shared
 * editor token a conductor should not be handed.
 */
import { readFile } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { EXIT, type Io } from './io.js';

export const MCP_PATH = '/api/desk/mcp';

export const MCP_HELP = `usage: desk-library mcp --url URL [--token-file FILE]

Connects an MCP host that starts local processes to a running desk: reads
JSON-RPC messages on stdin, sends each to the desk's POST /api/desk/mcp,
and writes what it answers to stdout (docs/conductor.md). Opens no library.

  --url URL          the desk, e.g. http://127.0.0.1:8787 (its /api/desk/mcp)
  --token-file FILE  the bearer token, a conductor's; else DESK_MCP_TOKEN
  -h, --help         this help

exit  0 stdin ended, 2 usage error or an unreadable token file.
`;

/** The endpoint of the desk at `url`: its /api/desk/mcp, unless the URL names it already. */
export function mcpEndpoint(url: string): URL | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  if (!u.pathname.endsWith(MCP_PATH)) u.pathname = `${u.pathname.replace(/\/+$/, '')}${MCP_PATH}`;
  return u;
}

export interface McpStreams {
  stdin: Readable;
  stdout: Writable;
}

/** Runs the proxy until stdin ends; its exit code. */
export async function mcpCommand(args: string[], io: Io, usage: (why: string) => number, streams: McpStreams = { stdin: process.stdin, stdout: process.stdout }): Promise<number> {
  let values: { url?: string | undefined; 'token-file'?: string | undefined };
  try {
    values = parseArgs({ args, allowPositionals: false, options: { url: { type: 'string' }, 'token-file': { type: 'string' } } }).values;
  } catch (e) {
    return usage((e as Error).message);
  }
  if (!values.url) return usage('mcp needs --url, the desk, e.g. --url http://127.0.0.1:8787');
  const endpoint = mcpEndpoint(values.url);
  if (!endpoint) return usage(`--url ${values.url} is not an http(s) URL`);
  let token = process.env.DESK_MCP_TOKEN?.trim() ?? '';
  if (values['token-file'] !== undefined) {
    try {
      token = (await readFile(values['token-file'], 'utf8')).trim();
    } catch (e) {
      io.err(`desk-library: cannot read --token-file ${values['token-file']}: ${(e as Error).message}\n`);
      return EXIT.usage;
    }
    if (token === '') return usage(`--token-file ${values['token-file']} is empty`);
  }

  // loaded here, not at the top: every other command would load the SDK and zod under it for nothing
  // (a third of the code `desk-library user add` read, and of its CPU)
  const [{ StreamableHTTPClientTransport }, { StdioServerTransport }, { isInitializeRequest, isJSONRPCRequest }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const desk = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} } });
  const host = new StdioServerTransport(streams.stdin, streams.stdout);
  const toHost = (m: JSONRPCMessage) => host.send(m).catch((e: unknown) => io.err(`desk-library mcp: cannot write to stdout: ${(e as Error).message}\n`));
  /** initialize's id, until its answer names the protocol every later request must carry */
  let initializing: string | number | null = null;

  host.onmessage = (m) => {
    if (isJSONRPCRequest(m) && isInitializeRequest(m)) initializing = m.id;
    desk.send(m).catch((e: unknown) => {
      const why = (e as Error).message;
      io.err(`desk-library mcp: ${why}\n`);
      // a request the desk refused outright (401, 403, unreachable) still gets its answer, so the host does not wait for ever
      if (isJSONRPCRequest(m)) void toHost({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: `the desk at ${endpoint.origin} refused or did not answer: ${why}` } });
    });
  };
  desk.onmessage = (m) => {
    if (initializing !== null && 'id' in m && m.id === initializing && 'result' in m) {
      initializing = null;
      const version = (m.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') desk.setProtocolVersion(version);
    }
    void toHost(m);
  };
  desk.onerror = (e) => io.err(`desk-library mcp: ${e.message}\n`);
  host.onerror = (e) => io.err(`desk-library mcp: ${e.message}\n`);

  const ended = new Promise<void>((resolve) => {
    streams.stdin.once('end', resolve);
    streams.stdin.once('close', resolve);
  });
  await desk.start();
  await host.start();
  await ended;
  await host.close();
  await desk.close();
  return EXIT.ok;
}
