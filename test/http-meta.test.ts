/** Health, the template JSON Schema and the OpenAPI document. */
import { describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { openLibrary } from '../src/library/library.js';
import { API, openApp } from './http-fixture.js';
import { testSpawner } from './test-spawner.js';

const ctx = openApp('file');

/** The routes of docs/api.md, each with what its OpenAPI entry must declare. */
const ROUTES: [method: string, path: string, declares: ('params' | 'body' | 'query')[]][] = [
  ['get', '/templates', []],
  ['get', '/templates/{name}', ['params']],
  ['put', '/templates/{name}', ['params', 'body']],
  ['delete', '/templates/{name}', ['params']],
  ['post', '/settings/template-reset', ['body']],
  ['post', '/settings/template-acknowledge', ['body']],
  ['get', '/templates/{name}/diff', ['params', 'query']],
  ['post', '/templates/{name}/rebase', ['params']],
  ['post', '/templates/propose', ['body']],
  ['post', '/templates/{name}/launch-preview', ['params', 'body']],
  ['post', '/proposals', ['body']],
  ['get', '/proposals', []],
  ['get', '/proposals/{id}', []],
  ['post', '/proposals/{id}/save', ['body']],
  ['post', '/proposals/{id}/dismiss', ['body']],
  ['get', '/roles', []],
  ['get', '/roles/{name}', ['params']],
  ['post', '/role', ['body']],
  ['delete', '/roles/{name}', ['params']],
  ['get', '/events', []],
  ['get', '/schema/template.json', []],
  ['get', '/health', []],
  ['get', '/status', []],
  ['get', '/catalogue', []],
  ['get', '/me', []],
  ['get', '/templates/{name}/history', ['params']],
  ['get', '/templates/{name}/versions/{commit}', ['params']],
  ['post', '/templates/{name}/restore', ['params', 'body']],
  ['get', '/roles/{name}/history', ['params']],
  ['get', '/roles/{name}/versions/{commit}', ['params']],
  ['get', '/roles/{name}/diff', ['params', 'query']],
  ['post', '/roles/{name}/restore', ['params', 'body']],
  ['get', '/history', []],
  ['post', '/launches', ['body']],
  ['get', '/launches', []],
  ['get', '/launches/{id}', []],
  ['post', '/launches/{id}/approve', ['body']],
  ['post', '/launches/{id}/dismiss', ['body']],
  ['post', '/launches/{id}/withdraw', []],
  ['get', '/sync', []],
  ['post', '/sync', []],
  ['get', '/sync/templates/{name}', ['params']],
  ['post', '/sync/templates/{name}/rebase', ['params']],
  ['post', '/sync/templates/{name}/keep', ['params']],
  ['post', '/sync/templates/{name}/take', ['params']],
  ['get', '/sync/roles/{name}', ['params']],
  ['post', '/sync/roles/{name}/keep', ['params']],
  ['post', '/sync/roles/{name}/take', ['params']],
  ['get', '/upgrade', []],
  ['post', '/upgrade', ['body']],
  ['post', '/mcp', ['body']],
];

describe('GET /health', () => {
  test('liveness: ok and the version, and nothing else', async () => {
    const r = await ctx.app.inject({ url: `${API}/health` });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ ok: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  test('constant time: it never lists the library', async () => {
    await ctx.app.close(); // the root is locked by one library at a time
    const library = await openLibrary({ spawner: testSpawner, root: ctx.fx.root, harnessDir: ctx.fx.harness });
    const lists: string[] = [];
    const counted = new Proxy(library, {
      get(target, key, receiver) {
        if (key === 'listTemplates' || key === 'listRoles') lists.push(key);
        return Reflect.get(target, key, receiver);
      },
    });
    const own = await buildApp({ library: counted, web: false });
    try {
      for (let i = 0; i < 3; i++) expect((await own.inject({ url: `${API}/health` })).statusCode).toBe(200);
      expect(lists).toEqual([]);
    } finally {
      await own.close();
      await library.close();
      ctx.app = await ctx.fx.open();
    }
  });
});

describe('GET /status', () => {
  test('counts and the library root', async () => {
    const r = await ctx.app.inject({ url: `${API}/status` });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ ok: true, templates: 3, roles: 2, library_root: expect.stringMatching(/root$/) });
  });
});

describe('GET /schema/template.json', () => {
  test('is a JSON Schema of the template file', async () => {
    const r = await ctx.app.inject({ url: `${API}/schema/template.json` });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/schema\+json/);
    const s = r.json();
    expect(s.$schema).toMatch(/json-schema\.org/);
    expect(s.required).toEqual(expect.arrayContaining(['template', 'version', 'nodes']));
  });

  test('its $id is where the client reached it, not a fixed host and port', async () => {
    for (const host of ['localhost:80', '127.0.0.1:80']) {
      const r = await ctx.app.inject({ url: `${API}/schema/template.json`, headers: { host } });
      expect(r.json().$id).toBe(`http://${host}${API}/schema/template.json`);
    }
  });
});

describe('a route that does not exist', () => {
  test('is 404 not_found, the detail naming the route', async () => {
    const r = await ctx.app.inject({ url: `${API}/nothing?x=1` });
    expect(r.statusCode).toBe(404);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(r.json()).toMatchObject({ code: 'not_found', status: 404, detail: expect.stringContaining(`GET ${API}/nothing`) });
  });
});

describe('GET /api/desk/openapi.json', () => {
  test('is OpenAPI 3 with every route, its request schemas and a 200/201/204 and error response', async () => {
    const r = await ctx.app.inject({ url: `${API}/openapi.json` });
    expect(r.statusCode).toBe(200);
    const doc = r.json();
    expect(doc.openapi).toMatch(/^3\./);
    for (const [method, path, declares] of ROUTES) {
      const op = doc.paths[`${API}${path}`]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      const params = (op.parameters ?? []) as { in: string; name: string }[];
      if (declares.includes('params')) expect(params.some((p) => p.in === 'path' && p.name === 'name')).toBe(true);
      if (declares.includes('query')) expect(params.some((p) => p.in === 'query' && p.name === 'against')).toBe(true);
      if (declares.includes('body')) expect(op.requestBody?.content?.['application/json']?.schema).toBeDefined();
      const ok = op.responses['200'] ?? op.responses['201'] ?? op.responses['204'];
      expect(ok, `${method} ${path} success`).toBeDefined();
      // errors status by status (test/openapi-document.test.ts checks them all): every route can refuse a malformed request
      expect(op.responses['400']?.content?.['application/problem+json'], `${method} ${path} errors`).toBeDefined();
    }
    const count = Object.values(doc.paths as Record<string, object>).reduce((n, p) => n + Object.keys(p).length, 0);
    expect(count).toBe(ROUTES.length);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Problem', 'ProblemDetails', 'Card', 'TemplateDiff', 'TemplateAnswer']),
    );
  });

  test('every ETag-bearing answer is a template or role answer', async () => {
    for (const url of [`${API}/templates/alpha`, `${API}/roles/worker`]) {
      expect((await ctx.app.inject({ url })).headers.etag, url).toMatch(/^"[0-9a-f]{64}"$/);
    }
  });
});
