// The exported JSON Schema (docs/format.md, Editor completion;
// docs/api.md GET /api/desk/schema/template.json): draft-07, usable by yaml-language-server,
// accepting every shipped template and refusing what the format refuses.
// Ajv 8 comes with fastify; it defaults to draft-07.
import AjvModule from 'ajv';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { BUILTINS } from '../src/template/catalog/builtins.js';
import { CAPABILITIES } from '../src/template/catalog/capabilities.js';
import { PROFILES } from '../src/template/catalog/profiles.js';
import { TOOLS } from '../src/template/catalog/tools.js';
import { templateJsonSchema } from '../src/template/schema.js';
import { edit, QUICK, RESEARCH, shipped, TICKET_CLOSE } from './fixtures/templates/helpers.js';

// ajv is CommonJS: under NodeNext its default export arrives wrapped.
const Ajv = (AjvModule as unknown as { default: typeof AjvModule.default }).default;
const schema = templateJsonSchema();
const check = new Ajv({ allErrors: true, strict: true }).compile(schema);
const accepts = (source: string) => check(parse(source)) === true;

/** Every object schema in the tree. */
function* objects(s: unknown): Generator<Record<string, unknown>> {
  if (Array.isArray(s)) for (const x of s) yield* objects(x);
  else if (s && typeof s === 'object') {
    const o = s as Record<string, unknown>;
    if (o.type === 'object') yield o;
    for (const v of Object.values(o)) yield* objects(v);
  }
}

describe('templateJsonSchema', () => {
  test('is draft-07 with an $id', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(typeof schema.$id).toBe('string');
  });

  test('is plain JSON (no TypeBox symbols, survives a round trip)', () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });

  test('every object refuses unknown keys, and every property has a description', () => {
    let seen = 0;
    for (const o of objects(schema)) {
      expect(o.additionalProperties).toBe(false);
      for (const [key, p] of Object.entries((o.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        expect(typeof p.description, `property ${key}`).toBe('string');
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(30);
  });

  test('enumerations come from the catalogues', () => {
    const text = JSON.stringify(schema);
    for (const name of [...Object.keys(PROFILES), ...Object.keys(TOOLS), ...Object.keys(CAPABILITIES), ...Object.keys(BUILTINS)]) {
      expect(text).toContain(JSON.stringify(name));
    }
  });

  test.each(['quick-fix', 'research', 'ticket-close'])('accepts fixture %s', (name) => {
    const source = { 'quick-fix': QUICK, research: RESEARCH, 'ticket-close': TICKET_CLOSE }[name] ?? '';
    expect(check(parse(source)), JSON.stringify(check.errors)).toBe(true);
  });

  const templates = shipped();
  test.skipIf(templates.length === 0).each(templates)('accepts shipped template $name', ({ source }) => {
    expect(check(parse(source)), JSON.stringify(check.errors)).toBe(true);
  });

  test.each([
    ['an unknown header key', edit(QUICK, '  writes: true\n', '  writes: true\n  colour: red\n')],
    ['an unknown top-level key', `${QUICK}extra: 1\n`],
    ['an unknown model node key', edit(QUICK, 'profile: read_only }', 'profile: read_only, colour: red }')],
    ['an argument the builtin does not take', edit(QUICK, 'builtin: checks,', 'builtin: checks, over: complete_ticket,')],
    ['a tool node with an extra key', edit(RESEARCH, 'tool: web.fetch }', 'tool: web.fetch, prompt: hi }')],
    ['an unknown profile', edit(QUICK, 'profile: read_only', 'profile: root')],
    ['an unknown builtin', edit(QUICK, 'builtin: checks,', 'builtin: lint,')],
    ['an unknown capability', edit(QUICK, 'over: complete_ticket', 'over: finish')],
    ['an unknown tool', edit(RESEARCH, 'tool: web.fetch', 'tool: web.crawl')],
    ['a capability_assert without over', edit(QUICK, ', over: complete_ticket', '')],
    ['a model node without a profile', edit(QUICK, ', profile: read_only', '')],
    ['a subpatch', edit(QUICK, 'checks: { type: builtin, builtin: checks, max_visits: 5 }', 'checks: { type: subpatch }')],
    ['writes: "yes"', edit(QUICK, 'writes: true', 'writes: "yes"')],
    ['version 2', edit(QUICK, 'version: 1', 'version: 2')],
    ['a bad node id', edit(QUICK, '  checks: {', '  Checks: {')],
    ['a bad cord end', edit(QUICK, 'from: intake.done', 'from: intake')],
    ['no nodes', 'template: { name: a, purpose: b, entry: a, inlet: start }\nversion: 1\nnodes: {}\n'],
    ['a two-line purpose', edit(QUICK, 'purpose: one small ticket, one worker, checks, a human gate, landed and closed', 'purpose: "a\\nb"')],
  ])('refuses %s', (_what, source) => {
    expect(accepts(source)).toBe(false);
  });
});
