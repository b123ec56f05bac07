/**
 * Tools a tool node can name, and a role's kit.json can list (docs/format.md, Tool nodes).
 * A tool node touches exactly its tool id.
 */
export const TOOLS = {
  'web.fetch': 'fetch a web page',
  'web.search': 'search the web',
  'shell.run': 'run a shell command in the workspace',
  'workspace.read': 'read files in the workspace',
  'workspace.write': 'write files in the workspace',
  'tickets.read': 'read tickets',
  'tickets.update': 'update tickets',
  'documents.read': 'read saved documents',
  'documents.write': 'write saved documents',
} as const satisfies Record<string, string>;

export type ToolName = keyof typeof TOOLS;

export function isTool(name: string): name is ToolName {
  return Object.hasOwn(TOOLS, name);
}

/**
 * Tools that change tickets. A node granted one — by its role's kit, or a
 * tool node naming it — may mutate tickets, as a profile touching
 * `tickets.write` does (docs/format.md, "May mutate tickets").
 */
export const TICKET_WRITING_TOOLS: readonly ToolName[] = ['tickets.update'];
