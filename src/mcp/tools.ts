/**
 * The conductor's tools (docs/conductor.md) as tools/list hands them out,
 * and a call as tools/call answers it. No tool saves, resets, deletes,
 * restores, approves or dismisses, whatever the token's role: the operator
 * decides at the desk.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Value } from '@sinclair/typebox/value';
import { isDeskError } from '../errors.js';
import { type JsonSchema, selfContained } from './json-schema.js';
import { CARD_URI, type CallProblem, type Tool, type ToolContext } from './tool.js';
import { getTemplate, listTemplates, validateTemplateTool } from './tools-read.js';
import { awaitDecision, draftLaunch, proposeTemplate, withdrawLaunch } from './tools-records.js';

export const TOOLS: readonly Tool[] = [listTemplates, getTemplate, validateTemplateTool, proposeTemplate, draftLaunch, awaitDecision, withdrawLaunch];

const byName = new Map(TOOLS.map((t) => [t.name, t]));

/** A tool as tools/list lists it. */
export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  annotations: Tool['hints'] & { title: string };
  _meta?: Record<string, unknown>;
}

/** Built once: the schemas do not change while the service runs. */
export const TOOL_LISTINGS: readonly ToolListing[] = TOOLS.map((t) => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: selfContained(t.args) as ToolListing['inputSchema'],
  outputSchema: selfContained(t.result) as ToolListing['outputSchema'],
  annotations: { title: t.title, ...t.hints },
  // the MCP Apps extension: a host that has it shows the result in the card app; `ui/resourceUri` for hosts of its first drafts
  ...(t.card ? { _meta: { ui: { resourceUri: CARD_URI }, 'ui/resourceUri': CARD_URI } } : {}),
}));

export interface CallResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * A refused call: its text is the refusal as JSON — the code, a sentence,
 * and each problem's code, path and message — with no structuredContent (a
 * client checks that against outputSchema even on errors).
 */
export function refusal(code: string, detail: string, problems: readonly CallProblem[], extra: Record<string, unknown> = {}): CallResult {
  const body = { code, detail, problems: problems.map(({ code: c, path, message }) => ({ code: c, path, message })), ...extra };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** The problems of arguments that do not fit the tool's inputSchema. */
function argumentProblems(t: Tool, args: unknown): CallProblem[] {
  return [...Value.Errors(t.args, args)].slice(0, 20).map((e) => ({ code: 'bad_request', path: e.path || '/', message: e.message }));
}

/**
 * tools/call. Arguments that do not fit, and anything the desk refuses, are
 * refusals a model can act on; an unknown tool is the protocol's fault (the
 * MCP spec's JSON-RPC error, InvalidParams), as is a fault of the desk's own.
 */
export async function callTool(name: string, args: unknown, ctx: ToolContext): Promise<CallResult> {
  const t = byName.get(name);
  if (!t) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}; tools/list names the desk's tools`);
  const given = args ?? {};
  if (!Value.Check(t.args, given)) return refusal('bad_request', `the arguments do not fit ${name}'s inputSchema; nothing was done`, argumentProblems(t, given));
  try {
    const a = await t.run(given, ctx);
    return { content: [{ type: 'text', text: a.text }], structuredContent: a.structured };
  } catch (err) {
    if (!isDeskError(err)) throw err;
    const listed = Array.isArray(err.extra.problems) ? (err.extra.problems as CallProblem[]) : [];
    const problems = listed.length ? listed : [{ code: err.code, path: '', message: err.message }];
    // a spent hourly allowance says when the next create is allowed (library/records/rate-limit.ts)
    const retryAfter = (err as { retryAfter?: unknown }).retryAfter;
    return refusal(err.code, err.message, problems, typeof retryAfter === 'number' ? { retry_after: retryAfter } : {});
  }
}
