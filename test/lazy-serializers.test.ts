/** The answer serializers (src/http/lazy-serializers.ts): compiled at a route's first answer, and the same as fastify's own. */
import { expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { lazySerializers } from '../src/http/lazy-serializers.js';

const route = (schema: unknown) => ({ schema, method: 'GET', url: '/x', httpStatus: '200' });

test('a serializer is compiled at its first use, not when the route is registered', () => {
  const compile = lazySerializers({}, {});
  // a $ref to nothing fails fast-json-stringify's compile: here only when something is serialized
  const broken = compile(route({ $ref: 'nowhere#' }));
  expect(() => broken({})).toThrow();
  const serialize = compile(route({ type: 'object', properties: { a: { type: 'string' } } }));
  // fast-json-stringify's output: only the schema's properties
  expect(serialize({ a: 'x', b: 1 })).toBe('{"a":"x"}');
});

test('an app answers through them: a response schema still drops what it does not name', async () => {
  const app = await buildApp({ libraryOptions: { root: null }, web: false });
  app.get('/x', { schema: { response: { 200: { type: 'object', properties: { a: { type: 'string' } } } } } }, async () => ({ a: 'x', secret: 'y' }));
  await app.ready();
  const r = await app.inject({ method: 'GET', url: '/x' });
  expect(r.json()).toEqual({ a: 'x' });
  await app.close();
});
