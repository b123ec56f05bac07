/** POST /templates/:name/launch-preview over a real library with the shipped harness: statuses, codes, runs, and nothing written. */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type App, buildApp } from '../src/app.js';
import { LOCK_FILE } from '../src/library/disk/root-lock.js';
import { testSpawner } from './test-spawner.js';

const API = '/api/desk';
const harnessDir = new URL('../harness', import.meta.url).pathname;
const INVALID = `template:
  name: broken
  purpose: a model node with no profile
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker }
`;

let dir: string;
let root: string;
let app: App;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-launch-'));
  root = join(dir, 'root');
  await mkdir(join(root, 'templates'), { recursive: true });
  // an operator file written by hand, as one could be: the library loads it and finds it invalid
  await writeFile(join(root, 'templates', 'broken.yaml'), INVALID);
  app = await buildApp({ libraryOptions: { spawner: testSpawner, root, harnessDir }, web: false });
});
afterAll(async () => {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

const preview = (name: string, payload: unknown, headers: Record<string, string> = {}) =>
  // always sent as JSON text, so a body that is a bare string or number is still a JSON body
  app.inject({
    method: 'POST',
    url: `${API}/templates/${name}/launch-preview`,
    payload: JSON.stringify(payload),
    headers: { 'content-type': 'application/json', ...headers },
  });

/**
 * Every file under the root with the sha256 of its bytes and its mtime, to
 * show a preview writes nothing. The root lock's folder is left out: its
 * refresh timer touches it whatever the requests do.
 */
async function snapshot(at: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(at, { withFileTypes: true, recursive: true })) {
    if (join(e.parentPath, e.name).includes(LOCK_FILE)) continue;
    // history commits in the background after start (docs/history.md): the library's files are what count
    if (join(e.parentPath, e.name).startsWith(join(at, '.git'))) continue;
    const p = join(e.parentPath, e.name);
    if (e.isFile()) out[p] = `${createHash('sha256').update(await readFile(p)).digest('hex')} ${(await stat(p)).mtimeMs}`;
    else out[p] = e.isDirectory() ? 'dir' : 'other';
  }
  return out;
}

describe('POST /templates/:name/launch-preview', () => {
  test('200: quick-fix with three tickets is three runs, each with one ticket and its prompts folded', async () => {
    const r = await preview('quick-fix', { inputs: { tickets: ['T-1', 'T-2', 'T-3'] } });
    expect(r.statusCode).toBe(200);
    const body = r.json();
    const got = await app.inject({ url: `${API}/templates/quick-fix` });
    expect(body.etag).toBe(got.headers.etag);
    expect(r.headers.etag).toBe(got.headers.etag);
    expect(body.name).toBe('quick-fix');
    expect(body.ok).toBe(true);
    expect(body.problems).toEqual([]);
    expect(body.runs.map((x: { inputs: unknown }) => x.inputs)).toEqual([{ tickets: ['T-1'] }, { tickets: ['T-2'] }, { tickets: ['T-3'] }]);
    const work = body.runs[2].nodes.find((n: { id: string }) => n.id === 'work');
    expect(work.prompt).toMatch(/^Fix T-3 with/);
    expect(work.touches).toEqual(['workspace.read', 'workspace.write', 'shell.run']);
  });

  test('200 with problems: every input problem at once, with codes and paths, and no runs', async () => {
    const r = await preview('quick-fix', { inputs: { tickets: ['T-1', { id: 2 }], colour: 'red' } });
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.ok).toBe(false);
    expect(body.runs).toEqual([]);
    expect(body.problems.map((p: { code: string; path: string; severity: string }) => `${p.code} ${p.path} ${p.severity}`)).toEqual([
      'input.unknown /inputs/colour error',
      'input.type /inputs/tickets/1 error',
    ]);
  });

  test('a value bringing a placeholder into a prompt is refused by the guard: not ok, no runs', async () => {
    const r = await preview('quick-fix', { inputs: { tickets: ['T-1', '{{inputs.tickets}}'] } });
    const body = r.json();
    expect(r.statusCode).toBe(200);
    expect(body.ok).toBe(false);
    expect(body.runs).toEqual([]);
    expect(new Set(body.problems.map((p: { code: string; path: string }) => `${p.code} ${p.path}`))).toEqual(new Set(['input.introduces_machinery /inputs/tickets/1']));
  });

  test('each node says its pinned model, whether it may not run, and the holes its prompt keeps', async () => {
    const body = (await preview('research', { inputs: { question: 'why?' } })).json();
    const nodes = body.runs[0].nodes as { id: string; model: string | null; on_path: string | null; holes: string[]; prompt: string | null }[];
    const byId = (id: string) => nodes.find((n) => n.id === id)!;
    expect([byId('research').model, byId('grok').model, byId('grok').on_path, byId('research').on_path]).toEqual(['claude', 'grok', 'grok', null]);
    // `sources` is optional with no default: its placeholder stays in the text, and is marked
    expect(byId('frame').holes).toEqual(['sources']);
    expect(byId('frame').prompt).toContain('{{inputs.sources}}');
  });

  test('batch launches its tickets together: one run', async () => {
    const body = (await preview('batch', { inputs: { tickets: ['a', 'b', 'c'] } })).json();
    expect(body.runs).toHaveLength(1);
  });

  test('If-Match pins the version: the current ETag previews, a stale one is 412', async () => {
    const etag = (await app.inject({ url: `${API}/templates/quick-fix` })).headers.etag as string;
    expect((await preview('quick-fix', { inputs: { tickets: ['a'] } }, { 'if-match': etag })).statusCode).toBe(200);
    const stale = await preview('quick-fix', { inputs: { tickets: ['a'] } }, { 'if-match': '"sha256-0000"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().code).toBe('precondition_failed');
  });

  test('an invalid template is 409 template_invalid_for_launch with its problems', async () => {
    const r = await preview('broken', { inputs: {} });
    expect(r.statusCode).toBe(409);
    expect(r.json().code).toBe('template_invalid_for_launch');
    expect(r.json().problems.map((p: { code: string }) => p.code)).toContain('model.profile_missing');
  });

  test('an unknown template is 404; a bad body is 400', async () => {
    expect((await preview('no-such', { inputs: {} })).json()).toMatchObject({ status: 404, code: 'not_found' });
    expect((await preview('quick-fix', { inputs: [] })).statusCode).toBe(400);
    expect((await preview('quick-fix', { inputs: {}, extra: 1 })).statusCode).toBe(400);
  });

  test('an empty body is a preview with no inputs', async () => {
    const r = await preview('research', {});
    expect(r.statusCode).toBe(200);
    // research declares a required input, so the empty preview says which
    expect(r.json().problems.map((p: { code: string }) => p.code)).toContain('input.missing');
  });

  test('a preview writes nothing: the bytes under the root are unchanged', async () => {
    const before = await snapshot(root);
    for (const inputs of [{ tickets: ['a', 'b'] }, { tickets: 'x' }, {}]) await preview('quick-fix', { inputs });
    await preview('broken', { inputs: {} });
    await preview('batch', { inputs: { tickets: Array.from({ length: 120 }, (_, i) => `T-${i}`) } });
    expect(await snapshot(root)).toEqual(before);
  });

  test('never a 5xx: random bodies and names answer 200, 400, 404 or 409', async () => {
    const names = fc.constantFrom('quick-fix', 'batch', 'research', 'broken', 'no-such', 'Bad_Name');
    const inputs = fc.oneof(
      fc.dictionary(fc.constantFrom('tickets', 'question', 'sources', 'x', '__proto__', 'constructor'), fc.jsonValue({ maxDepth: 3 })),
      fc.jsonValue({ maxDepth: 2 }),
    );
    await fc.assert(
      fc.asyncProperty(names, fc.oneof(inputs.map((i) => ({ inputs: i })), fc.jsonValue({ maxDepth: 2 })), async (name, body) => {
        const r = await preview(name, body);
        expect([200, 400, 404, 409], r.body.slice(0, 200)).toContain(r.statusCode);
      }),
      { seed: 12, numRuns: 150 },
    );
  });
});
