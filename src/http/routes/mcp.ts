/**
 * `POST /api/desk/mcp` (docs/conductor.md): the desk as an MCP server, over
 * the Streamable HTTP transport of the MCP TypeScript SDK, stateless — a
 * new server and transport for each request, so nothing is kept between
 * calls and any number of conductors can call at once. Behind the guards
 * every route has (Host, Origin, the token and its role: conductor or
 * editor, the body cap); the body fastify parsed is handed to the transport
 * with the raw request and response once the reply is hijacked. GET and
 * DELETE, which a stateful server would use for its own stream and for
 * ending a session, answer 405.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import { DeskError } from '../../errors.js';
import type { Library } from '../../library/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { LaunchStore, ProposalStore } from '../../library/index.js';
import { errorResponses } from '../schemas.js';
import { askerOf } from './asker.js';

/**
 * What every answer here carries. A hijacked reply skips fastify's onSend,
 * so they are set on the raw response: never cached (a result is one
 * person's), never sniffed into something it is not, no referrer.
 */
export const MCP_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * Sets MCP_HEADERS on `res`, and keeps them when the transport writes its
 * head: an event stream's own `cache-control: no-cache` would let a cache
 * keep one person's result.
 */
function ownHeaders(res: ServerResponse, stopping: AbortSignal): void {
  for (const [k, v] of Object.entries(MCP_HEADERS)) res.setHeader(k, v);
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    // what fastify does for a reply it sends while closing: a kept-alive socket would hold the close
    // until the client's keep-alive ends (70 s seen for an await_decision answered at the stop)
    if (stopping.aborted) res.setHeader('connection', 'close');
    for (const a of args.slice(1)) {
      if (a === null || typeof a !== 'object' || Array.isArray(a)) continue;
      const headers = a as Record<string, unknown>;
      for (const k of Object.keys(headers)) if (Object.hasOwn(MCP_HEADERS, k.toLowerCase())) delete headers[k];
    }
    return writeHead(...args);
  }) as ServerResponse['writeHead'];
}

/**
 * A tool call that carries a progress token may send notifications before
 * its answer, so it is answered as an event stream; every other request as
 * one JSON body, which the transport allows either way. The stream's
 * web-stream plumbing on both ends cost more than the rest of a call
 * (bench/RESULTS.md, mcp).
 */
function mayProgress(body: Static<typeof JsonRpcMessage>): boolean {
  if (body.method !== 'tools/call' || body.params === null || typeof body.params !== 'object') return false;
  const meta = (body.params as { _meta?: unknown })._meta;
  return meta !== null && typeof meta === 'object' && (meta as { progressToken?: unknown }).progressToken !== undefined;
}

/**
 * The MCP SDK and the desk's tools over it, loaded at the endpoint's first
 * request: with zod under the SDK they are about a third of the code a start
 * reads (1.4 of 3.9 MB), and most starts never answer an MCP request.
 */
async function loadMcp() {
  const [{ StreamableHTTPServerTransport }, { deskServer, sharedValidator }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('../../mcp/server.js'),
  ]);
  return { StreamableHTTPServerTransport, deskServer, sharedValidator };
}

const JsonRpcMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
    method: Type.Optional(Type.String({ description: 'initialize, tools/list, tools/call, resources/read, …' })),
    params: Type.Optional(Type.Unknown()),
    result: Type.Optional(Type.Unknown()),
    error: Type.Optional(Type.Unknown()),
  },
  { description: 'one JSON-RPC 2.0 message of the Model Context Protocol (2025-06-18 or 2025-11-25)' },
);

export const mcpRoutes: FastifyPluginAsyncTypebox<{ library: Library; proposals: ProposalStore; launches: LaunchStore }> = async (app, { library, proposals, launches }) => {
  // the service stops: a wait for a decision answers now, so no request holds the close
  const stopping = new AbortController();
  app.addHook('preClose', async () => stopping.abort());
  // one load and one validator for the endpoint, made at its first request
  let mcp: Promise<Awaited<ReturnType<typeof loadMcp>> & { validator: jsonSchemaValidator }> | null = null;
  const loaded = () => (mcp ??= loadMcp().then((m) => ({ ...m, validator: m.sharedValidator() })));

  app.post(
    '/mcp',
    {
      schema: {
        summary: 'The desk as an MCP server: JSON-RPC over the Streamable HTTP transport, for a conductor',
        tags: ['mcp'],
        body: JsonRpcMessage,
        response: {
          200: {
            description: 'the JSON-RPC answer: one JSON body, or Server-Sent Events for a tool call that sent a progress token (progress first, then the answer)',
            content: { 'application/json': { schema: JsonRpcMessage }, 'text/event-stream': { schema: Type.String() } },
          },
          202: { description: 'a notification or a response, taken', content: { 'text/event-stream': { schema: Type.Null() } } },
          ...errorResponses,
        },
      },
    },
    async (req, reply) => {
      const { StreamableHTTPServerTransport, deskServer, validator } = await loaded();
      reply.hijack();
      const res = reply.raw;
      ownHeaders(res, stopping.signal);
      const server = deskServer({ library, proposals, launches, asker: askerOf(req), stopping: stopping.signal, validator });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !mayProgress(req.body) });
      // a caller that goes away mid-call ends the call (a wait stops waiting); an answered one has
      // nothing left to stop, and closing it would only build the SDK's `Connection closed` error
      res.once('close', () => {
        if (res.writableFinished) return;
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(req.raw, res, req.body);
      } catch (err) {
        // hijacked: fastify's error handler no longer answers
        req.log.error({ err }, 'an MCP request failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32603,"message":"the desk failed to answer; the error is in its log"},"id":null}');
        else res.destroy();
      }
    },
  );

  // stateless: no stream of the server's own to open, no session to end
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      exposeHeadRoute: false,
      schema: { hide: true },
      handler: async (_req, reply) => {
        reply.header('allow', 'POST');
        throw new DeskError('method_not_allowed', 'the MCP endpoint takes POST only: it keeps no session and opens no stream of its own');
      },
    });
  }
};
