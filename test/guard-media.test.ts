/**
 * Only application/json bodies are parsed (415 unsupported_media_type
 * otherwise), within 1 MiB (413), and a body with a prototype key is 400.
 */
import { describe, expect, it } from 'vitest';
import { mimeEssence } from '../src/http/guard-media.js';
import { codeOf, guardApp, send } from './guard-fixture.js';

describe('mimeEssence (WHATWG parse a MIME type)', () => {
  it.each([
    ['application/json', 'application/json'],
    ['APPLICATION/JSON', 'application/json'],
    ['application/json;charset=utf-8', 'application/json'],
    ['application/json\t;charset=utf-8', 'application/json'],
    [' \tapplication/json \t', 'application/json'],
    ['application/json;', 'application/json'],
    ['application/json; charset="a;b"', 'application/json'],
    ['text/plain', 'text/plain'],
    ['multipart/form-data; boundary=x', 'multipart/form-data'],
    ['application/jsonx', 'application/jsonx'],
  ])('%j has essence %s', (value, want) => {
    expect(mimeEssence(value)).toBe(want);
  });

  it.each([
    '',
    'json',
    '/json',
    'application/',
    'application /json',
    'application/ json',
    'application/json, text/plain',
    '\u00a0application/json',
    'application/json\u00a0',
    'application/json/x',
  ])('%j is not a MIME type', (value) => {
    expect(mimeEssence(value)).toBeNull();
  });
});

const put = (contentType: string | undefined, payload = '{"source":"x"}') => ({
  method: 'PUT' as const,
  url: '/api/desk/templates/x',
  payload,
  headers: (contentType === undefined ? {} : { 'content-type': contentType }) as Record<string, string>,
});

describe('JSON-only bodies', () => {
  it.each([
    'application/json',
    'APPLICATION/JSON',
    'application/json;charset=utf-8',
    'application/json\t;charset=utf-8',
    'Application/Json; charset="utf-8"',
  ])('%j is parsed', async (ct) => {
    const { app } = await guardApp();
    const res = await send(app, put(ct));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ saved: { source: 'x' } });
  });

  it.each([
    'text/plain',
    'text/plain;charset=UTF-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=----x',
    'application/jsonx',
    'application/json, text/plain',
    'application/problem+json',
    'text/json',
    'json',
  ])('%j is 415 and the route never runs', async (ct) => {
    const { app, calls } = await guardApp();
    const res = await send(app, put(ct));
    expect(res.statusCode).toBe(415);
    expect(codeOf(res)).toBe('unsupported_media_type');
    expect(calls()).toBe(0);
  });

  it('a body with no Content-Type is 415', async () => {
    const { app, calls } = await guardApp();
    const res = await send(app, { ...put(undefined), headers: { 'content-length': '14' } });
    expect(res.statusCode).toBe(415);
    expect(codeOf(res)).toBe('unsupported_media_type');
    expect(calls()).toBe(0);
  });

  it('a non-JSON Content-Type with an empty body is 415 too', async () => {
    const { app } = await guardApp();
    const res = await send(app, put('text/plain', ''));
    expect(res.statusCode).toBe(415);
  });

  it('a request without a body needs no Content-Type; an empty JSON body is no body', async () => {
    const { app } = await guardApp();
    const bare = await send(app, { method: 'DELETE', url: '/api/desk/templates/x' });
    expect(bare.statusCode).toBe(200);
    expect(bare.json()).toEqual({ saved: null });
    const empty = await send(app, { method: 'DELETE', url: '/api/desk/templates/x', headers: { 'content-type': 'application/json' } });
    expect(empty.statusCode).toBe(200);
  });

  it('a GET is never parsed, whatever its Content-Type', async () => {
    const { app } = await guardApp();
    const res = await send(app, { url: '/api/desk/health', headers: { 'content-type': 'text/plain' } });
    expect(res.statusCode).toBe(200);
  });

  it('fastify itself parses nothing but JSON: text/plain has no parser left', async () => {
    const { app } = await guardApp();
    expect(app.hasContentTypeParser('application/json')).toBe(true);
    expect(app.hasContentTypeParser('text/plain')).toBe(false);
  });

  it('malformed JSON is 400 bad_request', async () => {
    const { app, calls } = await guardApp();
    const res = await send(app, put('application/json', '{"source":'));
    expect(res.statusCode).toBe(400);
    expect(codeOf(res)).toBe('bad_request');
    expect(calls()).toBe(0);
  });

  it.each([
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
  ])('a prototype key is refused, not stripped: %s', async (payload) => {
    const { app, calls } = await guardApp();
    const res = await send(app, put('application/json', payload));
    expect(res.statusCode).toBe(400);
    expect(codeOf(res)).toBe('bad_request');
    expect(calls()).toBe(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a body of exactly 1 MiB is parsed; one byte more is 413', async () => {
    const { app, calls } = await guardApp();
    const fill = (n: number) => `{"source":"${'a'.repeat(n - 13)}"}`;
    expect(fill(1_048_576).length).toBe(1_048_576);
    expect((await send(app, put('application/json', fill(1_048_576)))).statusCode).toBe(200);
    const res = await send(app, put('application/json', fill(1_048_577)));
    expect(res.statusCode).toBe(413);
    expect(codeOf(res)).toBe('payload_too_large');
    expect(calls()).toBe(1);
  });
});
