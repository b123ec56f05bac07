/**
 * The root, library and app of the launch draft tests (http-launches and
 * http-launches-wait): the shipped harness with `greet` saved over it, one
 * library and app a test, and the routes as short calls. A test file calls
 * useLaunchesRoot() once at its top; `library`, `app`, `events` and `root`
 * are live bindings to the current ones.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { type App, type AppOptions, buildApp } from '../src/app.js';
import type { DeskEvent } from '../src/library/events/bus.js';
import { openLibrary } from '../src/library/library.js';
import type { RecordsOptions } from '../src/library/records.js';
import type { Library } from '../src/library/types.js';
import { testSpawner } from './test-spawner.js';

export const API = '/api/desk';
export const harnessDir = new URL('../harness', import.meta.url).pathname;

export const GREET = `template:
  name: greet
  purpose: greet someone
  inputs:
    - { name: who, required: true, type: string }
    - { name: mood, type: string, one_of: [glad, calm], default: glad }
    - { name: aside, type: string }
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker, profile: read_only, prompt: "Greet {{inputs.who}}, {{inputs.mood}}. {{inputs.aside}}" }
  gate: { type: builtin, builtin: human_gate }
cords:
  - { from: work.done, to: gate.in }
`;
export const GREET_2 = GREET.replace('greet someone', 'greet someone warmly');
export const GREET_NEEDS_MORE = GREET.replace('    - { name: aside, type: string }', '    - { name: aside, type: string }\n    - { name: place, required: true, type: string }');
export const GREET_INVALID = GREET.replace('profile: read_only', 'profile: everything');

let dir: string;
export let root: string;
export let library: Library;
export let app: App;
export let events: DeskEvent[];

export async function open(extra: Omit<AppOptions, 'library' | 'libraryOptions'> = {}, records: RecordsOptions = {}) {
  library = await openLibrary({ spawner: testSpawner, root, harnessDir, records });
  events = [];
  library.events.subscribe((e) => events.push(e));
  app = await buildApp({ library, web: false, ...extra });
  await app.ready();
}
export async function close() {
  await app?.close();
  await library?.close();
}

/**
 * Registers the test file's hooks. The root every test starts from — made,
 * greet saved and committed, the library closed — is built once for the
 * file and copied for each test: making a root (its git repository, the
 * first start's commit, greet's commit) was most of a test's git processes.
 */
export function useLaunchesRoot(): void {
  let template: string;
  beforeAll(async () => {
    template = await mkdtemp(join(tmpdir(), 'desk-launches-template-'));
    root = join(template, 'root');
    await mkdir(join(root, 'templates'), { recursive: true });
    await open();
    expect((await put('greet', GREET, { 'if-none-match': '*' })).statusCode).toBe(200);
    await library.history.settle();
    await close();
  });
  afterAll(() => rm(template, { recursive: true, force: true }));

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'desk-launches-'));
    root = join(dir, 'root');
    await cp(join(template, 'root'), root, { recursive: true });
    await open();
  });
  afterEach(async () => {
    await close();
    await rm(dir, { recursive: true, force: true });
  });
}

export const put = (name: string, source: string, headers: Record<string, string>) =>
  app.inject({ method: 'PUT', url: `${API}/templates/${name}`, headers: { 'content-type': 'application/json', ...headers }, payload: { source } });
export const etagOf = async (name: string) => (await app.inject({ url: `${API}/templates/${name}` })).headers.etag as string;
export const draft = (body: Record<string, unknown>) => app.inject({ method: 'POST', url: `${API}/launches`, payload: body });
export async function drafted(inputs: Record<string, unknown> = { who: 'Ada' }, template = 'greet'): Promise<string> {
  const r = await draft({ template, inputs });
  expect(r.statusCode).toBe(201);
  return r.json().id;
}
export const get = (id: string, wait?: string) => app.inject({ url: `${API}/launches/${id}${wait === undefined ? '' : `?wait=${wait}`}` });
export const list = (status?: string) => app.inject({ url: `${API}/launches${status ? `?status=${status}` : ''}` });
export const approve = (id: string, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url: `${API}/launches/${id}/approve`, headers });
export const dismiss = (id: string, payload?: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: `${API}/launches/${id}/dismiss`, ...(payload ? { payload } : {}) });
export const withdraw = (id: string) => app.inject({ method: 'POST', url: `${API}/launches/${id}/withdraw` });
export const files = async () => (await readdir(join(root, 'launches')).catch(() => [] as string[])).filter((f) => !f.startsWith('.'));
export const launchEvents = () => events.filter((e) => e.type.startsWith('launch.')).map((e) => `${e.type} ${(e.data as { status: string }).status}`);

/** The library and app over no root at all. */
export async function openWithoutRoot(): Promise<void> {
  library = await openLibrary({ spawner: testSpawner, root: null, harnessDir });
  app = await buildApp({ library, web: false });
}

export function readRecord(id: string): Promise<string> {
  return readFile(join(root, 'launches', `${id}.json`), 'utf8');
}
