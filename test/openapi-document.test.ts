/**
 * The OpenAPI document is complete enough for a client nobody here wrote
 * (docs/api.md, OpenAPI): every operation named, every error answer the one
 * problem+json schema with its status spelled out, `code` the catalogue of
 * src/errors.ts, ETag declared on exactly the answers that send it, and the
 * media types the service really sends.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { ERROR_CODES } from '../src/errors.js';
import { PROBLEM_SCHEMA_REF } from '../src/http/openapi.js';
import { EVERY_OPERATION, OPERATIONS } from '../src/http/operations.js';
import { ALPHA, API, openApp } from './http-fixture.js';

interface Param {
  in: string;
  name: string;
}
interface Op {
  operationId?: string;
  parameters?: Param[];
  security?: Record<string, string[]>[];
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: Record<string, unknown> }> }>;
}
interface Doc {
  paths: Record<string, Record<string, Op>>;
  components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }>; required?: string[] }>; securitySchemes: Record<string, { type: string; scheme?: string }> };
}

const ctx = openApp('file');

async function served(): Promise<Doc> {
  const r = await ctx.app.inject({ url: `${API}/openapi.json` });
  expect(r.statusCode).toBe(200);
  return r.json();
}

function operations(doc: Doc): [key: string, op: Op][] {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([m, op]) => [`${m.toUpperCase()} ${path.slice(API.length)}`, op] as [string, Op]));
}

describe('the OpenAPI document', () => {
  test('every operation has its row in src/http/operations.ts, and every row an operation', async () => {
    const keys = operations(await served()).map(([k]) => k);
    expect(keys.filter((k) => !OPERATIONS[k]), 'operations without a row').toEqual([]);
    expect(Object.keys(OPERATIONS).filter((k) => !keys.includes(k)), 'rows without a route').toEqual([]);
  });

  test('every operation has an operationId, unique, an identifier a generator can use', async () => {
    const ids = operations(await served()).map(([k, op]) => [k, op.operationId] as const);
    for (const [k, id] of ids) expect(id, k).toMatch(/^[a-z][A-Za-z]+$/);
    expect(new Set(ids.map(([, id]) => id)).size).toBe(ids.length);
  });

  test('every operation names the bearer scheme, which is http bearer', async () => {
    const doc = await served();
    const schemes = doc.components.securitySchemes;
    for (const [k, op] of operations(doc)) {
      expect(op.security?.some((s) => 'bearerAuth' in s), k).toBe(true);
      for (const s of op.security ?? []) for (const name of Object.keys(s)) expect(schemes[name], `${k} ${name}`).toBeDefined();
    }
    expect(schemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  test('every error answer is application/problem+json with ProblemDetails, status by status, no ranges', async () => {
    const doc = await served();
    const shared = doc.components.schemas.ProblemDetails!;
    for (const [k, op] of operations(doc)) {
      const row = OPERATIONS[k]!;
      const statuses = Object.keys(op.responses).filter((s) => !/^[123]/.test(s));
      expect(statuses.filter((s) => !/^[45]\d\d$/.test(s)), `${k}: ranges`).toEqual([]);
      expect(statuses.map(Number), k).toEqual(expect.arrayContaining([...EVERY_OPERATION, ...row.errors]));
      for (const s of statuses) {
        const content = op.responses[s]!.content ?? {};
        expect(Object.keys(content), `${k} ${s}`).toEqual(['application/problem+json']);
        const schema = content['application/problem+json']!.schema;
        // a route's own refusal schema (a launch refusal carries its draft) is ProblemDetails and more
        if (schema.$ref !== PROBLEM_SCHEMA_REF) {
          const props = schema.properties as Record<string, unknown>;
          expect(props.code, `${k} ${s}`).toEqual(shared.properties.code);
          expect(schema.required, `${k} ${s}`).toEqual(expect.arrayContaining(shared.required!));
        }
      }
    }
  });

  test('every tag an operation names is declared once with a description, and every declared tag is used', async () => {
    const doc = (await served()) as Doc & { tags?: { name: string; description?: string }[] };
    const declared = (doc.tags ?? []).map((t) => t.name);
    expect(new Set(declared).size).toBe(declared.length);
    for (const t of doc.tags ?? []) expect(t.description, t.name).toBeTruthy();
    const used = new Set(operations(doc).flatMap(([, op]) => (op as Op & { tags?: string[] }).tags ?? []));
    expect([...used].sort()).toEqual([...declared].sort());
  });

  test('every operation has a description beyond its summary, naming its role and its section of docs/api.md', async () => {
    const doc = await served();
    for (const [k, op] of operations(doc)) {
      const { summary, description } = op as Op & { summary?: string; description?: string };
      expect(description, k).toBeTruthy();
      expect(description, k).not.toBe(summary);
      expect(description, k).toContain(`${OPERATIONS[k]!.role} role`);
      expect(description, k).toContain(`\`${k.split(' ')[0]} ${API}${k.split(' ')[1]!.replace(/\{(\w+)\}/g, ':$1')}\``);
    }
  });

  test('info.contact has a name, and a URL only once package.json has a homepage', async () => {
    const doc = (await served()) as Doc & { info: { contact?: { name?: string; url?: string } } };
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { homepage?: string };
    expect(doc.info.contact?.name).toBeTruthy();
    expect(doc.info.contact?.url).toBe(pkg.homepage);
  });

  test("ProblemDetails' code is the enumeration of src/errors.ts's codes", async () => {
    const doc = await served();
    expect(doc.components.schemas.ProblemDetails!.properties.code!.enum).toEqual(Object.keys(ERROR_CODES));
  });

  test('a route that takes If-Match or If-None-Match declares the 412 it answers', async () => {
    const doc = await served();
    const taking = operations(doc).filter(([, op]) => op.parameters?.some((p) => p.in === 'header' && /^if-(none-)?match$/.test(p.name)));
    for (const [k, op] of taking) expect(op.responses['412'], k).toBeDefined();
    // the writes docs/api.md says take If-Match (ETag / If-Match)
    const keys = taking.map(([k]) => k);
    for (const k of ['PUT /templates/{name}', 'DELETE /templates/{name}', 'POST /settings/template-reset', 'POST /settings/template-acknowledge', 'POST /role', 'DELETE /roles/{name}']) {
      expect(keys, k).toContain(k);
    }
  });
});

/** Requests the fixture answers, each the operation it exercises. */
const CASES: [key: string, method: 'GET' | 'PUT' | 'POST', url: string, status: number, body?: unknown, headers?: Record<string, string>][] = [
  ['GET /templates', 'GET', '/templates', 200],
  ['GET /templates/{name}', 'GET', '/templates/alpha', 200],
  ['GET /templates/{name}', 'GET', '/templates/nope', 404],
  ['PUT /templates/{name}', 'PUT', '/templates/gamma', 200, { source: ALPHA.replace('name: alpha', 'name: gamma') }],
  ['PUT /templates/{name}', 'PUT', '/templates/gamma', 412, { source: ALPHA.replace('name: alpha', 'name: gamma') }, { 'if-match': '"0"' }],
  ['PUT /templates/{name}', 'PUT', '/templates/delta', 422, { source: 'template: [' }],
  ['PUT /templates/{name}', 'PUT', '/templates/delta', 415, 'x', { 'content-type': 'text/plain' }],
  ['POST /templates/{name}/launch-preview', 'POST', '/templates/alpha/launch-preview', 200, {}],
  ['GET /roles', 'GET', '/roles', 200],
  ['GET /roles/{name}', 'GET', '/roles/worker', 200],
  ['GET /roles/{name}', 'GET', '/roles/Worker', 400],
  ['GET /catalogue', 'GET', '/catalogue', 200],
  ['GET /health', 'GET', '/health', 200],
  ['GET /status', 'GET', '/status', 200],
  ['GET /proposals', 'GET', '/proposals', 200],
  ['GET /launches', 'GET', '/launches', 200],
  ['GET /upgrade', 'GET', '/upgrade', 200],
  ['GET /sync', 'GET', '/sync', 200],
  ['GET /schema/template.json', 'GET', '/schema/template.json', 200],
];

describe('the document says what the service sends', () => {
  test.each(CASES)('%s: %s %s %i — the status, its media type and ETag as declared', async (key, method, url, status, body, headers) => {
    const doc = await served();
    const op = doc.paths[API + key.split(' ')[1]]?.[key.split(' ')[0]!.toLowerCase()];
    expect(op, key).toBeDefined();
    const r = await ctx.app.inject({ method, url: API + url, ...(body !== undefined ? { payload: body as object } : {}), ...(headers ? { headers } : {}) });
    expect(r.statusCode, r.body).toBe(status);
    const declared = op!.responses[String(r.statusCode)];
    expect(declared, `${key} answered ${r.statusCode}`).toBeDefined();
    const type = String(r.headers['content-type']).split(';')[0];
    expect(Object.keys(declared!.content ?? {}), `${key} ${r.statusCode}`).toEqual([type]);
    // ETag is declared on a success exactly when it is sent
    if (r.statusCode < 300) expect(declared!.headers?.ETag !== undefined, `${key} ETag`).toBe(r.headers.etag !== undefined);
  });
});
