/**
 * One source for the answer shapes (src/schema/): the routes the settings page
 * reads answer with exactly those schemas, the page compiles against their
 * Static types with none of their code in its build, and the entry states are
 * one list from the library to the OpenAPI document and docs/api.md.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import swagger from '@fastify/swagger';
import { type TSchema, Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { beforeAll, describe, expect, expectTypeOf, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { SHARED_SCHEMAS } from '../src/http/schemas.js';
import type { EntryState as LibraryEntryState, Library } from '../src/library/types.js';
import { CardSchema } from '../src/schema/card.js';
import { TemplateDiffSchema } from '../src/schema/diff.js';
import { ProblemDetailsSchema } from '../src/schema/errors.js';
import { RoleAnswerSchema, RoleListSchema } from '../src/schema/roles.js';
import { ENTRY_STATES, type EntryState } from '../src/schema/state.js';
import { RebaseAnswerSchema, TemplateAnswerSchema, TemplateListSchema } from '../src/schema/templates.js';

const root = new URL('..', import.meta.url).pathname;

interface OpenApi {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
  components: { schemas: Record<string, Record<string, unknown>> };
}

/** The same OpenAPI setup as src/app.ts: shared schemas become components named by their $id. */
async function openApiOf(register: (app: ReturnType<typeof Fastify>) => void): Promise<OpenApi> {
  const app = Fastify();
  for (const s of SHARED_SCHEMAS) app.addSchema(s);
  await app.register(swagger, {
    openapi: { openapi: '3.1.0' },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  register(app);
  await app.ready();
  const doc = app.swagger() as unknown as OpenApi;
  await app.close();
  return doc;
}

const json200 = (doc: OpenApi, method: string, path: string) => doc.paths[path]?.[method]?.responses['200']?.content?.['application/json']?.schema;

/** Every answer the page reads, with the src/schema/ schema its type is the Static of. */
const PAGE_READS: [method: string, path: string, schema: TSchema][] = [
  ['get', '/api/desk/templates', TemplateListSchema],
  ['get', '/api/desk/templates/{name}', Type.Ref(TemplateAnswerSchema)],
  ['get', '/api/desk/templates/{name}/diff', Type.Ref(TemplateDiffSchema)],
  ['post', '/api/desk/templates/{name}/rebase', RebaseAnswerSchema],
  ['post', '/api/desk/templates/propose', Type.Ref(CardSchema)],
  ['get', '/api/desk/roles', RoleListSchema],
  ['get', '/api/desk/roles/{name}', Type.Ref(RoleAnswerSchema)],
];

describe('the answer schemas are one source', () => {
  let served: OpenApi;
  beforeAll(async () => {
    const app = await buildApp({ library: { root: null } as unknown as Library, web: false });
    await app.ready();
    served = app.swagger() as unknown as OpenApi;
    await app.close();
  });

  test('every route the page reads answers with the src/schema/ schema the page is typed by', async () => {
    // Rendered by the same OpenAPI setup, so an inline copy that differs in any field shows here.
    const expected = await openApiOf((app) => {
      for (const [i, [, , schema]] of PAGE_READS.entries()) {
        app.get(`/expected/${i}`, { schema: { response: { 200: schema } } }, async () => null);
      }
    });
    for (const [i, [method, path]] of PAGE_READS.entries()) {
      expect(json200(served, method, path), `${method.toUpperCase()} ${path}`).toEqual(json200(expected, 'get', `/expected/${i}`));
    }
    // ...and the shared components those answers point at are the schema modules' own.
    expect(served.components.schemas).toEqual(expected.components.schemas);
  });

  test('every error answer the page reads is ProblemDetails', () => {
    const ref = { $ref: `#/components/schemas/${ProblemDetailsSchema.$id}` };
    for (const [method, path] of PAGE_READS) {
      expect(served.paths[path]?.[method]?.responses['400']?.content?.['application/problem+json']?.schema, path).toEqual(ref);
    }
  });

  test("the OpenAPI document's state enum is the library's list", () => {
    expectTypeOf<LibraryEntryState>().toEqualTypeOf<(typeof ENTRY_STATES)[number]>();
    expectTypeOf<EntryState>().toEqualTypeOf<LibraryEntryState>();
    for (const shape of ['TemplateSummary', 'TemplateAnswer', 'RoleSummary', 'RoleAnswer']) {
      const props = served.components.schemas[shape]?.properties as Record<string, { anyOf: { enum: string[] }[] }> | undefined;
      expect(props?.state?.anyOf.flatMap((b) => b.enum), shape).toEqual([...ENTRY_STATES]);
    }
  });

  test('docs/api.md lists the same states', () => {
    const doc = readFileSync(join(root, 'docs/api.md'), 'utf8');
    const table = doc.slice(doc.indexOf('## States'), doc.indexOf('\n## ', doc.indexOf('## States') + 1));
    expect([...table.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1])).toEqual([...ENTRY_STATES]);
  });
});

describe('the page is built against the server types', () => {
  let build: ReturnType<typeof spawnSync>;
  beforeAll(() => {
    // a type check only (noEmit): esbuild bundles the page (scripts/build-web.mjs)
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.web.json'], { cwd: root, encoding: 'utf8' });
  });

  test('src/web compiles against src/schema/ (a field the answers lack, or a wrong type, fails here)', () => {
    expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);
  });
});
