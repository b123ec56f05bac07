/**
 * What each operation is beyond its route's schema (docs/api.md, OpenAPI):
 * the operationId a generated client names the call by, the least role a
 * user needs to call it, the refusals the route itself can answer, and
 * whether its success carries an ETag. One table, so a reader sees every operation in one place
 * and the route files keep only their request and answer shapes; the
 * document is completed from it in ./openapi.ts, and a test checks that every
 * route has its row and every row a route.
 */
import type { UserRole } from './users.js';

/** A status an error answer can have: the statuses of src/errors.ts. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 412 | 413 | 415 | 421 | 422 | 429 | 500 | 503 | 507;

export interface Operation {
  /** the name a generated client gives the call; a verb first, unique */
  operationId: string;
  /** the least role a user needs to call it (docs/security.md, Users and roles; the guard reads it through auth-rules.ts) */
  role: UserRole;
  /** statuses of this route's own refusals (a name it does not hold, a conflict, a stale If-Match, an invalid body), beyond EVERY_OPERATION */
  errors: readonly ErrorStatus[];
  /** the success answer carries `ETag` (answers.ts withEtag): a template's or a role's as it now loads */
  etag?: true;
  /** its success also carries desk-answer-etag, the weak tag of the whole answer for If-None-Match (docs/api.md, Conditional GET) */
  answerEtag?: true;
  /** the success answer's media type when it is not application/json */
  content?: string;
}

/**
 * What any request can be answered, whatever the route (docs/security.md;
 * docs/api.md, Refusals): a malformed request (400), the token (401; 429 for
 * too many failures from one address), another origin or a role that may
 * not (403), a slow body (408), a body over 1 MiB (413) or not JSON (415),
 * another Host (421), an internal error (500), the service stopping or with
 * no history (503), and a library folder that cannot be written (507).
 */
export const EVERY_OPERATION: readonly ErrorStatus[] = [400, 401, 403, 408, 413, 415, 421, 429, 500, 503, 507];

/** Keyed by `METHOD /path` under /api/desk, the path as the document writes it (`{name}`). */
export const OPERATIONS: Readonly<Record<string, Operation>> = {
  // templates
  'GET /templates': { operationId: 'listTemplates', role: 'viewer', errors: [] },
  'GET /templates/{name}': { operationId: 'getTemplate', role: 'viewer', errors: [404, 409], etag: true, answerEtag: true },
  'PUT /templates/{name}': { operationId: 'saveTemplate', role: 'editor', errors: [409, 412, 422], etag: true },
  'DELETE /templates/{name}': { operationId: 'deleteTemplate', role: 'editor', errors: [404, 409, 412] },
  'POST /settings/template-reset': { operationId: 'resetTemplate', role: 'editor', errors: [404, 409, 412], etag: true },
  'POST /settings/template-acknowledge': { operationId: 'acknowledgeTemplate', role: 'editor', errors: [404, 409, 412], etag: true },
  'GET /templates/{name}/diff': { operationId: 'diffTemplate', role: 'viewer', errors: [404, 409] },
  'POST /templates/{name}/rebase': { operationId: 'rebaseTemplate', role: 'viewer', errors: [404, 409] },
  'POST /templates/propose': { operationId: 'cardOfProposedTemplate', role: 'viewer', errors: [404, 409] },
  'POST /templates/{name}/launch-preview': { operationId: 'previewLaunch', role: 'viewer', errors: [404, 409, 412, 422], etag: true },
  // proposals
  'POST /proposals': { operationId: 'createProposal', role: 'conductor', errors: [409, 422] },
  'GET /proposals': { operationId: 'listProposals', role: 'viewer', errors: [] },
  'GET /proposals/{id}': { operationId: 'getProposal', role: 'viewer', errors: [404] },
  'POST /proposals/{id}/save': { operationId: 'saveProposal', role: 'editor', errors: [404, 409, 412, 422] },
  'POST /proposals/{id}/dismiss': { operationId: 'dismissProposal', role: 'editor', errors: [404, 409] },
  // launches
  'POST /launches': { operationId: 'createLaunch', role: 'conductor', errors: [404, 409, 422] },
  'GET /launches': { operationId: 'listLaunches', role: 'viewer', errors: [] },
  'GET /launches/{id}': { operationId: 'getLaunch', role: 'viewer', errors: [404] },
  'POST /launches/{id}/approve': { operationId: 'approveLaunch', role: 'editor', errors: [404, 409, 412, 422] },
  'POST /launches/{id}/dismiss': { operationId: 'dismissLaunch', role: 'editor', errors: [404, 409] },
  'POST /launches/{id}/withdraw': { operationId: 'withdrawLaunch', role: 'conductor', errors: [404, 409] },
  // roles
  'GET /roles': { operationId: 'listRoles', role: 'viewer', errors: [] },
  'GET /roles/{name}': { operationId: 'getRole', role: 'viewer', errors: [404, 409], etag: true },
  'POST /role': { operationId: 'saveRole', role: 'editor', errors: [404, 409, 412, 422], etag: true },
  'DELETE /roles/{name}': { operationId: 'deleteRole', role: 'editor', errors: [404, 409, 412] },
  // history
  'GET /history': { operationId: 'listHistory', role: 'viewer', errors: [] },
  'GET /templates/{name}/history': { operationId: 'listTemplateHistory', role: 'viewer', errors: [404] },
  'GET /templates/{name}/versions/{commit}': { operationId: 'getTemplateVersion', role: 'viewer', errors: [404] },
  'POST /templates/{name}/restore': { operationId: 'restoreTemplate', role: 'editor', errors: [404, 409, 412, 422], etag: true },
  'GET /roles/{name}/history': { operationId: 'listRoleHistory', role: 'viewer', errors: [404] },
  'GET /roles/{name}/versions/{commit}': { operationId: 'getRoleVersion', role: 'viewer', errors: [404] },
  'GET /roles/{name}/diff': { operationId: 'diffRole', role: 'viewer', errors: [404] },
  'POST /roles/{name}/restore': { operationId: 'restoreRole', role: 'editor', errors: [404, 409, 412, 422], etag: true },
  // sync
  'GET /sync': { operationId: 'getSyncStatus', role: 'viewer', errors: [] },
  'POST /sync': { operationId: 'syncNow', role: 'editor', errors: [409] },
  'GET /sync/templates/{name}': { operationId: 'getDivergedTemplate', role: 'viewer', errors: [404, 409] },
  'POST /sync/templates/{name}/rebase': { operationId: 'rebaseDivergedTemplate', role: 'viewer', errors: [404, 409] },
  'POST /sync/templates/{name}/keep': { operationId: 'keepTemplate', role: 'editor', errors: [404, 409, 412] },
  'POST /sync/templates/{name}/take': { operationId: 'takeTemplate', role: 'editor', errors: [404, 409, 412, 422] },
  'GET /sync/roles/{name}': { operationId: 'getDivergedRole', role: 'viewer', errors: [404, 409] },
  'POST /sync/roles/{name}/keep': { operationId: 'keepRole', role: 'editor', errors: [404, 409, 412] },
  'POST /sync/roles/{name}/take': { operationId: 'takeRole', role: 'editor', errors: [404, 409, 412] },
  // upgrade
  'GET /upgrade': { operationId: 'planUpgrade', role: 'viewer', errors: [] },
  'POST /upgrade': { operationId: 'upgradeTemplates', role: 'editor', errors: [409, 412] },
  // service
  'GET /events': { operationId: 'streamEvents', role: 'viewer', errors: [], content: 'text/event-stream' },
  'GET /me': { operationId: 'getMe', role: 'viewer', errors: [] },
  'GET /health': { operationId: 'getHealth', role: 'viewer', errors: [] },
  'GET /status': { operationId: 'getStatus', role: 'viewer', errors: [] },
  'GET /catalogue': { operationId: 'getCatalogue', role: 'viewer', errors: [] },
  'GET /schema/template.json': { operationId: 'getTemplateSchema', role: 'viewer', errors: [], content: 'application/schema+json' },
  // the conductor's MCP server (docs/conductor.md): its refusals inside the protocol are JSON-RPC errors and tool results
  'POST /mcp': { operationId: 'callMcp', role: 'conductor', errors: [], content: 'text/event-stream' },
};
