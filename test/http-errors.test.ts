/**
 * The one error handler: every failure is problem+json with a code; fastify's
 * own errors are mapped; internal errors never leak their message.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type App, buildApp } from '../src/app.js';
import { DeskError } from '../src/errors.js';
import { toProblem } from '../src/http/errors.js';
import type { Library } from '../src/library/types.js';

let saves = 0;
const fake = {
  root: null,
  catalogue: async () => ({ roles: new Set<string>(), templates: new Set<string>() }),
  listTemplates: async () => [],
  getTemplate: async () => null,
  listRoles: async () => [],
  getRole: async () => null,
  saveTemplate: async (name: string) => {
    saves++;
    if (name === 'explode') throw new Error('secret internal detail /etc/passwd');
    throw new DeskError('read_only', 'refused', { problems: [] });
  },
  deleteTemplate: async () => undefined,
  close: async () => undefined,
} as unknown as Library;

let app: App;
beforeAll(async () => {
  app = await buildApp({ library: fake, port: 80 });
});
afterAll(() => app.close());

const PROBLEM = /^application\/problem\+json/;

describe('error answers', () => {
  test('an internal error is 500 internal with a generic detail', async () => {
    const r = await app.inject({ method: 'PUT', url: '/api/desk/templates/explode', payload: { source: 'x' } });
    expect(r.statusCode).toBe(500);
    expect(r.headers['content-type']).toMatch(PROBLEM);
    const body = r.json();
    expect(body).toMatchObject({ status: 500, code: 'internal', type: 'urn:desk-library:error:internal' });
    expect(r.body).not.toContain('secret');
    expect(r.body).not.toContain('passwd');
  });

  test('a DeskError keeps its code, status and extra members', async () => {
    const r = await app.inject({ method: 'PUT', url: '/api/desk/templates/ok', payload: { source: 'x' } });
    expect(r.statusCode).toBe(403);
    expect(r.json()).toMatchObject({ code: 'read_only', status: 403, problems: [] });
  });

  test('a bad name in the URL is 400 invalid_name and the library is not called', async () => {
    const before = saves;
    for (const name of ['Bad', '-x', 'a_b', 'x'.repeat(65)]) {
      const r = await app.inject({ method: 'PUT', url: `/api/desk/templates/${name}`, payload: { source: 'x' } });
      expect(r.statusCode, name).toBe(400);
      expect(r.json().code).toBe('invalid_name');
    }
    const traversal = await app.inject({ method: 'GET', url: '/api/desk/templates/..%2Fetc' });
    expect(traversal.json().code).toBe('invalid_name');
    expect(saves).toBe(before);
  });

  test('a bad name in a body is 400 invalid_name', async () => {
    const r = await app.inject({ method: 'POST', url: '/api/desk/settings/template-reset', payload: { name: '../x' } });
    expect(r.statusCode).toBe(400);
    expect(r.json().code).toBe('invalid_name');
    const role = await app.inject({ method: 'POST', url: '/api/desk/role', payload: { name: 'Bad-Role', reset: true } });
    expect(role.json().code).toBe('invalid_name');
  });

  test('an unknown body key is 400 bad_request naming the key; nothing is called', async () => {
    const before = saves;
    const r = await app.inject({ method: 'PUT', url: '/api/desk/templates/ok', payload: { source: 'x', sauce: 1 } });
    expect(r.statusCode).toBe(400);
    expect(r.json().code).toBe('bad_request');
    expect(r.json().detail).toContain('sauce');
    expect(saves).toBe(before);
  });

  test('a wrong type is not coerced: 400 naming the field', async () => {
    const r = await app.inject({ method: 'PUT', url: '/api/desk/templates/ok', payload: { source: 12 } });
    expect(r.statusCode).toBe(400);
    expect(r.json().detail).toContain('/source');
  });

  test('a missing key is 400 naming it', async () => {
    const r = await app.inject({ method: 'PUT', url: '/api/desk/templates/ok', payload: {} });
    expect(r.statusCode).toBe(400);
    expect(r.json().detail).toContain('source');
  });

  test('invalid JSON is 400 bad_request', async () => {
    const r = await app.inject({
      method: 'PUT',
      url: '/api/desk/templates/ok',
      headers: { 'content-type': 'application/json' },
      payload: '{"source": ',
    });
    expect(r.statusCode).toBe(400);
    expect(r.headers['content-type']).toMatch(PROBLEM);
    expect(r.json().code).toBe('bad_request');
  });

  test('a body that is not JSON is 415', async () => {
    const r = await app.inject({
      method: 'PUT',
      url: '/api/desk/templates/ok',
      headers: { 'content-type': 'text/plain' },
      payload: 'source: x',
    });
    expect(r.statusCode).toBe(415);
    expect(r.json().code).toBe('unsupported_media_type');
  });

  test('a body over 1 MiB is 413 payload_too_large', async () => {
    const r = await app.inject({
      method: 'PUT',
      url: '/api/desk/templates/ok',
      payload: { source: 'x'.repeat(1024 * 1024 + 1) },
    });
    expect(r.statusCode).toBe(413);
    expect(r.json().code).toBe('payload_too_large');
  });

  test('an unknown route is 404 not_found problem+json', async () => {
    const r = await app.inject({ method: 'GET', url: '/api/desk/nothing-here' });
    expect(r.statusCode).toBe(404);
    expect(r.headers['content-type']).toMatch(PROBLEM);
    expect(r.json()).toMatchObject({ code: 'not_found', status: 404 });
  });

  test('an unknown template and role are 404 not_found', async () => {
    expect((await app.inject({ url: '/api/desk/templates/none' })).json().code).toBe('not_found');
    expect((await app.inject({ url: '/api/desk/roles/none' })).json().code).toBe('not_found');
    expect((await app.inject({ url: '/api/desk/templates/none/diff' })).statusCode).toBe(404);
  });

  test('an unknown query key on diff is 400', async () => {
    const r = await app.inject({ url: '/api/desk/templates/x/diff?agianst=shipped' });
    expect(r.statusCode).toBe(400);
    expect(r.json().code).toBe('bad_request');
  });

  test("fastify's other client errors are 400, never 500; a plain error is 500", () => {
    expect(toProblem(Object.assign(new Error('x'), { code: 'FST_ERR_BAD_URL', statusCode: 400 })).code).toBe('bad_request');
    expect(toProblem(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH', statusCode: 400 })).code).toBe(
      'bad_request',
    );
    expect(toProblem(Object.assign(new Error('x'), { code: 'FST_ERR_SOMETHING_INTERNAL', statusCode: 500 })).code).toBe('internal');
    expect(toProblem(new TypeError('boom')).code).toBe('internal');
  });
});
