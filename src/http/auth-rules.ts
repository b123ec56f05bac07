/**
 * Who may call what (docs/security.md, Users and roles): the role each route
 * needs, read from the operations' table (./operations.ts) and keyed by
 * method and route pattern as fastify names them. The guard checks it
 * before a body is read, so a refused request writes nothing.
 * test/openapi-document.test.ts checks that every route has its row, so a
 * new route cannot be forgotten; one that is anyway needs `editor`, the
 * most any route needs.
 *
 * - viewer: every read, and the POSTs that write nothing (the propose card,
 *   the launch preview, the rebase previews);
 * - conductor: also creating proposals and launch drafts (and waiting on
 *   them: a GET), and withdrawing a draft of its own making;
 * - editor: everything an operator does — saving, resetting, restoring,
 *   deciding a proposal or a launch, syncing, upgrading.
 */
import { OPERATIONS } from './operations.js';
import type { UserRole } from './users.js';

const P = '/api/desk';
/** The OpenAPI document is not among its own operations; any user may read it. */
const DOCUMENT = `GET ${P}/openapi.json`;
/** The MCP endpoint's GET and DELETE, outside the document: they only answer 405 (routes/mcp.ts), to anyone known. */
const MCP_NOT_HERE = [`GET ${P}/mcp`, `DELETE ${P}/mcp`];

/**
 * Every route's role, keyed as fastify names the route
 * (`GET /api/desk/templates/:name`), from the operations' table
 * (./operations.ts), where each operation's row says the role it needs.
 */
export const ROUTE_ROLES: Readonly<Record<string, UserRole>> = Object.fromEntries([
  ...Object.entries(OPERATIONS).map(([key, op]) => {
    const [method, path] = key.split(' ') as [string, string];
    return [`${method} ${P}${path.replace(/\{(\w+)\}/g, ':$1')}`, op.role] as const;
  }),
  [DOCUMENT, 'viewer'],
  ...MCP_NOT_HERE.map((k) => [k, 'viewer'] as const),
]);

/** What a route not in the table needs: the most. */
export const UNLISTED_ROLE: UserRole = 'editor';

/** The role `METHOD url-pattern` needs; HEAD is its GET's. A URL that matched no route (a 404) needs only to be someone. */
export function roleFor(method: string, pattern: string | undefined): UserRole {
  if (pattern === undefined) return 'viewer';
  const m = method === 'HEAD' ? 'GET' : method;
  return ROUTE_ROLES[`${m} ${pattern}`] ?? UNLISTED_ROLE;
}
