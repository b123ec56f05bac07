/**
 * One MCP server for one HTTP request (stateless Streamable HTTP, docs/conductor.md):
 * the tools, the card app and the templates as resources, over the
 * library and record stores the routes use, for the person the request's
 * token names. Nothing outlives the request.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Library } from '../library/types.js';
import type { Asker, LaunchStore, ProposalStore } from '../library/index.js';
import { packageVersion } from '../paths.js';
import { listResources, readResource, RESOURCE_TEMPLATES } from './resources.js';
import { callTool, TOOL_LISTINGS } from './tools.js';

export interface DeskServerOptions {
  library: Library;
  proposals: ProposalStore;
  launches: LaunchStore;
  asker: Asker;
  /** aborted when the service stops: a wait answers now */
  stopping: AbortSignal;
  /** from sharedValidator(), one for the endpoint */
  validator: jsonSchemaValidator;
}

const INSTRUCTIONS =
  'The desk keeps the template library an agent harness launches from. You are a conductor: you may read templates, validate a text, propose a template and draft a launch; the operator decides each at the desk, and await_decision tells you what they chose. Nothing you do saves, approves or dismisses.';

/**
 * One JSON Schema validator for every request's server: a Server makes its
 * own otherwise, and a new Ajv with its formats costs more than the rest of
 * a request. The desk never elicits, which is all a server validates with
 * it. Made once by whoever mounts the endpoint (src/http/routes/mcp.ts).
 */
export function sharedValidator(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | null = null;
  return {
    getValidator: (schema) => {
      ajv ??= new AjvJsonSchemaValidator();
      return ajv.getValidator(schema);
    },
  };
}

export function deskServer(o: DeskServerOptions): Server {
  const server = new Server(
    { name: 'desk-library', title: 'Desk library', version: packageVersion },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator: o.validator },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...TOOL_LISTINGS] }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const token = req.params._meta?.progressToken;
    const progress =
      token === undefined
        ? async () => {}
        : (done: number, total: number, message: string) =>
            extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: done, total, message } });
    return callTool(req.params.name, req.params.arguments, {
      library: o.library,
      proposals: o.proposals,
      launches: o.launches,
      asker: o.asker,
      // made when a tool asks (only a wait does): AbortSignal.any on every call cost more than the call's own work
      get signal() {
        return AbortSignal.any([extra.signal, o.stopping]);
      },
      progress,
    });
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => listResources(o.library));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => readResource(o.library, req.params.uri));
  return server;
}
