/**
 * A client nobody here wrote compiles against the OpenAPI document
 * (docs/api.md, OpenAPI): openapi-typescript generates the types from the
 * live document, and the TypeScript example docs/api.md shows (openapi-fetch:
 * list, get, save with If-Match, 412 and 422 by code) is type-checked against
 * them, so the document cannot drift from what a client compiles against.
 * redocly lints the same document with its recommended rules (redocly.yaml),
 * and spectral with its OpenAPI rules (.spectral.yaml).
 *
 * openapi-typescript wants TypeScript 5 and this project uses 7, so these
 * tools live in test/client with their own lock: `npm ci --prefix test/client`
 * (.ci/run does it).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { OPERATIONS } from '../src/http/operations.js';
import { runSync, spawnChild } from './children.js';
import type { App } from '../src/app.js';
import { API, type Fixture, fixture, openApp } from './http-fixture.js';

const root = new URL('..', import.meta.url).pathname;
const client = join(root, 'test', 'client');
const bin = (pkg: string, file: string) => join(client, 'node_modules', pkg, file);

/** The ```ts block of docs/api.md's OpenAPI section: the example a reader copies. */
function docsExample(): string {
  const doc = readFileSync(join(root, 'docs', 'api.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### `GET /api/desk/openapi.json`'));
  const block = /```ts\n([\s\S]*?)```/.exec(section.slice(0, section.indexOf('\n## ')));
  if (!block) throw new Error('docs/api.md has no ```ts block in its GET /api/desk/openapi.json section');
  return block[1]!;
}

/** What only a complete document compiles: every operationId a key of `operations`, and `code` an enum. */
function namesCheck(): string {
  const ids = Object.values(OPERATIONS).map((o) => `  ${o.operationId}: true,`);
  return [
    "import type { components, operations } from './desk-api.js';",
    '// every operationId of src/http/operations.ts, and no other: both directions of Record',
    `export const named: Record<keyof operations, true> = {\n${ids.join('\n')}\n};`,
    "type Code = components['schemas']['ProblemDetails']['code'];",
    "export const known: Code = 'precondition_failed';",
    '// @ts-expect-error a misspelt code is none of the catalogue',
    "export const misspelt: Code = 'precondition_faild';",
    '',
  ].join('\n');
}

const ctx = openApp('file');
let dir = '';

beforeAll(() => {
  if (!['openapi-typescript/bin/cli.js', 'typescript/bin/tsc', '@stoplight/spectral-cli/dist/index.js'].every((f) => existsSync(join(client, 'node_modules', f)))) {
    throw new Error('test/client has no node_modules: run `npm ci --prefix test/client` (openapi-typescript, openapi-fetch, TypeScript 5, redocly, spectral)');
  }
  // inside test/client, so the example's `openapi-fetch` resolves from its node_modules
  dir = mkdtempSync(join(client, '.check-'));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): { status: number | null; out: string } {
  const r = runSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

describe('the OpenAPI document, to a client nobody here wrote', () => {
  test('openapi-typescript generates its types, and the docs/api.md example and every operationId compile with them', async () => {
    const r = await ctx.app.inject({ url: `${API}/openapi.json` });
    writeFileSync(join(dir, 'openapi.json'), r.body);
    const gen = run([bin('openapi-typescript', 'bin/cli.js'), 'openapi.json', '-o', 'desk-api.ts']);
    expect(gen.status, gen.out).toBe(0);
    writeFileSync(join(dir, 'client.ts'), docsExample());
    writeFileSync(join(dir, 'names.ts'), namesCheck());
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['*.ts'] }));
    const tsc = run([bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json']);
    expect(tsc.status, tsc.out).toBe(0);
  });

  test('redocly lint with the recommended rules finds nothing', async () => {
    const r = await ctx.app.inject({ url: `${API}/openapi.json` });
    writeFileSync(join(dir, 'lint.json'), r.body);
    const lint = run([bin('@redocly/cli', 'bin/cli.js'), 'lint', 'lint.json', '--config', join(root, 'redocly.yaml'), '--format', 'summary']);
    expect(lint.status, lint.out).toBe(0);
    // the summary names each rule that found something, one line each (`warning operation-summary: 2`)
    expect(lint.out).not.toMatch(/^(warning|error)\s/m);
  });

  test("spectral's OpenAPI rules (.spectral.yaml) find nothing, down to a hint", async () => {
    const r = await ctx.app.inject({ url: `${API}/openapi.json` });
    writeFileSync(join(dir, 'spectral.json'), r.body);
    const args = ['lint', 'spectral.json', '--ruleset', join(root, '.spectral.yaml'), '--format', 'json', '--output', 'spectral-out.json', '--fail-severity', 'hint'];
    const lint = run([bin('@stoplight/spectral-cli', 'dist/index.js'), ...args]);
    expect(lint.status, lint.out).toBe(0);
    const found = JSON.parse(readFileSync(join(dir, 'spectral-out.json'), 'utf8')) as { code: string; path: string[] }[];
    expect(found.map((f) => `${f.code} ${f.path.join('.')}`)).toEqual([]);
  });
});

/** The blocks of docs/api.md's OpenAPI section after `after`: the first ```LANG block. */
function docsBlock(lang: string, after: string): string {
  const doc = readFileSync(join(root, 'docs', 'api.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### `GET /api/desk/openapi.json`'));
  const from = section.indexOf(after);
  if (from === -1) throw new Error(`docs/api.md's OpenAPI section has no "${after}"`);
  const block = new RegExp(`\`\`\`${lang}\n([\\s\\S]*?)\`\`\``).exec(section.slice(from));
  if (!block) throw new Error(`no \`\`\`${lang} block after "${after}"`);
  return block[1]!;
}

describe('types from a desk with a token, the two ways docs/api.md shows', () => {
  const TOKEN = 'desk-client-check-token';
  let base = '';
  let fx: Fixture | undefined;
  let tokenApp: App | undefined;

  // a library of its own: the file's app holds its root's lock
  beforeAll(async () => {
    fx = await fixture();
    tokenApp = await fx.open({ token: TOKEN });
    base = await tokenApp.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await tokenApp?.close();
    await fx?.cleanup();
  });

  /**
   * A docs shell block run as written, on this test's service, with test/client's openapi-typescript.
   * Not spawnSync: the service answering it runs in this process, so the event loop must stay free.
   */
  async function shell(script: string, env: Record<string, string>): Promise<{ status: number | null; out: string }> {
    const line = script.replaceAll('http://127.0.0.1:8787', base).replaceAll('npx openapi-typescript', `node ${bin('openapi-typescript', 'bin/cli.js')}`);
    const child = spawnChild('sh', ['-ec', line], { cwd: dir, env: { ...process.env, NO_COLOR: '1', ...env } });
    let out = '';
    child.stdout?.on('data', (b) => (out += b));
    child.stderr?.on('data', (b) => (out += b));
    const status = await new Promise<number | null>((done) => child.once('close', (code) => done(code)));
    return { status, out };
  }

  function generated(): string {
    const types = readFileSync(join(dir, 'desk-api.ts'), 'utf8');
    rmSync(join(dir, 'desk-api.ts'));
    return types;
  }

  test('the document needs the token', async () => {
    expect((await fetch(`${base}/api/desk/openapi.json`)).status).toBe(401);
  });

  test('curl with the header, then openapi-typescript on the file', async () => {
    const r = await shell(docsBlock('sh', 'Download the document first'), { DESK_TOKEN: TOKEN });
    expect(r.status, r.out).toBe(0);
    expect(generated()).toContain('listTemplates: {');
  });

  test('openapi-typescript fetching it with the header from a Redocly config', async () => {
    const config = docsBlock('yaml', 'from a Redocly config').replaceAll('http://127.0.0.1:8787', base);
    writeFileSync(join(dir, 'desk-client.redocly.yaml'), config);
    const r = await shell(docsBlock('sh', 'desk-client.redocly.yaml'), { DESK_TOKEN: TOKEN });
    expect(r.status, r.out).toBe(0);
    expect(generated()).toContain('listTemplates: {');
  });
});
