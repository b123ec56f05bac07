/**
 * HTTP replay: one fixed session of requests over every route family under
 * /api/desk, whose answers (status, the headers below, body bytes) must stay
 * byte-identical to the ones recorded in test/fixtures/replay/session.json.
 * It guards refactors that must not change what the service answers.
 *
 * Record (writes the fixture instead of comparing):
 *   REPLAY_RECORD=1 npx vitest run --project unit test/http-replay.test.ts
 *
 * What legitimately varies between runs is normalised, identically when
 * recording and replaying (see Normaliser): the temp folder, timestamps, git
 * commit ids and proposal ids. ETags stay as they are: a template's or a
 * role's is a sha256 of its bytes, which the service computes the same way
 * every time, so a changed ETag is a changed answer.
 *
 * The harness, roles and templates are written here rather than taken from
 * test/http-fixture.ts, so that an edit there cannot move the recording.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { type App, buildApp } from '../src/app.js';
import { testSpawner } from './test-spawner.js';

const API = '/api/desk';
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'replay', 'session.json');
const RECORD = process.env.REPLAY_RECORD === '1';

/** The response headers compared; others (date, content-length, connection) say nothing the body does not. */
const HEADERS = ['cache-control', 'content-type', 'etag', 'location', 'retry-after'] as const;

// ---------------------------------------------------------------- the harness

/** The templates live as files beside the recording, so an edit to another test's fixtures never shifts it. */
const fixtureText = (file: string) => readFileSync(join(import.meta.dirname, 'fixtures', 'replay', file), 'utf8');

const ALPHA = fixtureText('alpha.yaml');

/** The next shipped alpha: a purpose that conflicts with the copy's, and a change on a line the copy left alone. */
const ALPHA_SHIPPED_2 = ALPHA.replace('one worker then a gate', 'the shipped purpose').replace('save_document }', 'save_document, document: notes }');

const BETA = fixtureText('beta.yaml');

const WORKER_MD = '# Worker\n\nDoes the work.\n';
const WORKER_KIT = '{\n  "tools": [\n    "shell.run"\n  ]\n}\n';
const REVIEWER_MD = '# Reviewer\n\nReads the work.\n';

/** alpha with another purpose: a valid copy per `n` */
const alphaTake = (n: number) => ALPHA.replace('purpose: one worker then a gate', `purpose: one worker then a gate, take ${n}`);
/** a custom variant of alpha */
const GAMMA = BETA.replaceAll('beta', 'gamma').replace('alpha with a review', 'a review, my way');
/** a custom template with inputs, for the launch preview */
const NOTES = fixtureText('notes.yaml');
/** valid YAML, not a valid template: an unknown role and profile */
const GAMMA_INVALID = GAMMA.replace('role: reviewer, profile: read_only', 'role: nobody, profile: everything');
/** written on disk by hand: loads, but is not valid */
const BROKEN = ALPHA.replaceAll('alpha', 'broken').replace('profile: read_only', 'profile: everything');
const NO_ETAG = '"0000000000000000000000000000000000000000000000000000000000000000"';

// ---------------------------------------------------------------- the session

/** The parts of an answer later steps use. */
interface Answer {
  id?: string;
  next?: string | null;
  versions?: { commit: string }[];
}

interface Sent {
  status: number;
  etag: string | undefined;
  json: Answer;
}

/** What earlier steps answered, for later steps to use (an ETag, a commit, a proposal id). */
class Kept {
  private readonly answers = new Map<string, Sent>();
  set(label: string, s: Sent): void {
    this.answers.set(label, s);
  }
  get(label: string): Sent {
    const s = this.answers.get(label);
    if (!s) throw new Error(`replay: no step kept as '${label}'`);
    return s;
  }
  etag(label: string): string {
    const e = this.get(label).etag;
    if (!e) throw new Error(`replay: step '${label}' answered no ETag`);
    return e;
  }
  json(label: string): Answer {
    const s = this.get(label);
    if (s.status >= 300) throw new Error(`replay: step '${label}' answered ${s.status}: ${JSON.stringify(s.json).slice(0, 300)}`);
    return s.json;
  }
}

type Lazy<T> = T | ((k: Kept) => T);
const resolve = <T>(v: Lazy<T>, k: Kept): T => (typeof v === 'function' ? (v as (k: Kept) => T)(k) : v);

interface Request {
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE';
  url: Lazy<string>;
  headers?: Lazy<Record<string, string>>;
  /** sent as JSON; `raw` sends bytes as they are, with the content-type in `headers` */
  json?: Lazy<unknown>;
  raw?: string;
  /** keep the answer under this label */
  keep?: string;
}

interface Action {
  /** what the harness does between requests, e.g. ship a new version and restart */
  act: (h: Harness) => Promise<void>;
}

type Step = Request | Action;

const get = (url: Lazy<string>, keep?: string): Request => ({ method: 'GET', url, ...(keep ? { keep } : {}) });
const send = (method: Request['method'], url: Lazy<string>, json?: Lazy<unknown>, headers?: Lazy<Record<string, string>>, keep?: string): Request => ({
  method,
  url,
  ...(json !== undefined ? { json } : {}),
  ...(headers ? { headers } : {}),
  ...(keep ? { keep } : {}),
});
const ifMatch = (label: string) => (k: Kept) => ({ 'if-match': k.etag(label) });
const commitOf = (label: string, i: number) => (k: Kept) => k.json(label).versions![i]!.commit;
const proposalId = (label: string) => (k: Kept) => k.json(label).id!;

/** Proposal ids sort by their millisecond, then random bits: a pause keeps two proposals in distinct milliseconds. */
const pause: Action = { act: () => new Promise((r) => setTimeout(r, 3)) };

const SESSION: Step[] = [
  // service
  get('/health'),
  get('/status'),
  get('/catalogue'),
  get('/schema/template.json'),
  get('/openapi.json'),

  // templates: read
  get('/templates'),
  get('/templates/alpha', 'alpha0'),
  get('/templates/beta'),
  get('/templates/nope'),
  get('/templates/Bad_Name'),

  // templates: save
  send('PUT', '/templates/alpha', { source: alphaTake(1) }, ifMatch('alpha0'), 'alpha1'),
  send('PUT', '/templates/alpha', { source: alphaTake(2) }, ifMatch('alpha0')),
  send('PUT', '/templates/alpha', { source: alphaTake(2) }, { 'if-match': NO_ETAG }),
  send('PUT', '/templates/alpha', { source: alphaTake(2) }, { 'if-none-match': '*' }),
  send('PUT', '/templates/gamma', { source: GAMMA }, { 'if-none-match': '*' }, 'gamma1'),
  send('PUT', '/templates/gamma', { source: GAMMA }, { 'if-none-match': '*' }),
  send('PUT', '/templates/gamma', { source: 'template: [unclosed\n  name: gamma\n' }),
  send('PUT', '/templates/gamma', { source: GAMMA_INVALID }),
  send('PUT', '/templates/Bad_Name', { source: GAMMA }),
  send('PUT', '/templates/gamma', { source: GAMMA, force: true }),
  send('PUT', '/templates/gamma', { source: 12 }),
  { method: 'PUT', url: '/templates/gamma', raw: GAMMA, headers: { 'content-type': 'text/yaml' } },
  { method: 'PUT', url: '/templates/gamma', raw: '{"source": ', headers: { 'content-type': 'application/json' } },
  send('PUT', '/templates/notes', { source: NOTES }, { 'if-none-match': '*' }, 'notes1'),
  send('PUT', '/templates/alpha', { source: alphaTake(2) }, ifMatch('alpha1'), 'alpha2'),
  get('/templates/gamma'),
  get('/templates'),

  // a template written by hand, not valid
  { act: (h) => h.write(BROKEN, 'templates', 'broken.yaml') },
  get('/templates/broken'),

  // diff and propose
  get('/templates/alpha/diff'),
  get('/templates/alpha/diff?against=beta'),
  get('/templates/beta/diff?against=base'),
  get('/templates/gamma/diff'),
  get('/templates/notes/diff'),
  get('/templates/notes/diff?against=shipped'),
  get('/templates/alpha/diff?against=nope'),
  get('/templates/alpha/diff?against=Not..A..Name'),
  get('/templates/alpha/diff?other=1'),
  send('POST', '/templates/propose', { name: 'delta', purpose: 'a proposed variant', source: GAMMA.replaceAll('gamma', 'delta') }),
  send('POST', '/templates/propose', { name: 'delta', purpose: 'broken on purpose', source: GAMMA_INVALID.replaceAll('gamma', 'delta') }),

  // launch preview
  send('POST', '/templates/notes/launch-preview', { inputs: { topics: ['tides', 'moons'] } }, undefined, 'preview1'),
  send('POST', '/templates/notes/launch-preview', { inputs: { topics: [], tone: 'loud', extra: 1 } }),
  send('POST', '/templates/notes/launch-preview', { inputs: { topics: ['tides'] } }, ifMatch('notes1')),
  send('POST', '/templates/notes/launch-preview', { inputs: { topics: ['tides'] } }, { 'if-match': NO_ETAG }),
  send('POST', '/templates/broken/launch-preview', {}),
  send('POST', '/templates/nope/launch-preview', {}),

  // rebase (three-way) and acknowledge
  send('POST', '/templates/alpha/rebase'),
  send('POST', '/templates/gamma/rebase'),
  { act: (h) => h.shipAndRestart('alpha', ALPHA_SHIPPED_2) },
  get('/templates/alpha', 'alpha2b'),
  send('POST', '/templates/alpha/rebase'),
  send('POST', '/templates/beta/rebase'),
  send('POST', '/settings/template-acknowledge', { name: 'alpha' }, { 'if-match': NO_ETAG }),
  send('POST', '/settings/template-acknowledge', { name: 'alpha' }, ifMatch('alpha2b'), 'alpha-ack'),
  send('POST', '/settings/template-acknowledge', { name: 'beta' }),
  send('POST', '/templates/alpha/rebase'),

  // roles
  get('/roles'),
  get('/roles/worker', 'worker0'),
  get('/roles/reviewer'),
  get('/roles/nobody'),
  get('/roles/Bad-Name'),
  send('POST', '/role', { name: 'worker', role_md: '# Worker\n\nDoes the work, carefully.\n', kit: { tools: ['shell.run'] } }, ifMatch('worker0'), 'worker1'),
  send('POST', '/role', { name: 'worker', role_md: '# Worker\n\nAgain.\n', kit: null }, ifMatch('worker0')),
  send('POST', '/role', { name: 'critic', role_md: '# Critic\n\nFinds faults.\n', kit: null }, undefined, 'critic1'),
  send('POST', '/role', { name: 'critic', role_md: '# Critic\n', kit: { tools: ['no.such_tool'] } }),
  send('POST', '/role', { name: 'critic', reset: true, role_md: 'x' }),
  send('POST', '/role', { name: 'critic' }),
  send('POST', '/role', { name: 'critic', reset: true }),
  send('POST', '/role', { name: 'worker', reset: true }, ifMatch('worker1')),
  get('/roles'),
  send('DELETE', '/roles/worker'),
  send('DELETE', '/roles/critic', undefined, { 'if-match': NO_ETAG }),
  send('DELETE', '/roles/critic', undefined, ifMatch('critic1')),
  get('/roles/critic'),

  // history
  get('/templates/alpha/history', 'alpha-history'),
  get('/templates/alpha/history?limit=1', 'alpha-page1'),
  get((k) => `/templates/alpha/history?limit=1&before=${k.json('alpha-page1').next}`),
  get('/templates/alpha/history?limit=0'),
  get('/templates/alpha/history?before=xyz'),
  get('/templates/nobody/history'),
  get((k) => `/templates/alpha/versions/${commitOf('alpha-history', 1)(k)}`),
  get((k) => `/templates/alpha/versions/${commitOf('alpha-history', 1)(k).slice(0, 7)}`),
  get('/templates/alpha/versions/0000000'),
  get((k) => `/templates/alpha/diff?against=version:${commitOf('alpha-history', 1)(k)}`),
  send('POST', '/templates/alpha/restore', (k: Kept) => ({ commit: commitOf('alpha-history', 1)(k) }), { 'if-match': NO_ETAG }),
  send('POST', '/templates/alpha/restore', (k: Kept) => ({ commit: commitOf('alpha-history', 1)(k) }), ifMatch('alpha-ack'), 'alpha-restored'),
  get('/templates/alpha/history'),
  get('/roles/worker/history', 'worker-history'),
  get((k) => `/roles/worker/versions/${commitOf('worker-history', 1)(k)}`),
  get((k) => `/roles/worker/diff?against=version:${commitOf('worker-history', 1)(k)}`),
  get('/roles/worker/diff?against=version:xyz'),
  send('POST', '/roles/worker/restore', (k: Kept) => ({ commit: commitOf('worker-history', 1)(k) })),
  get('/roles/critic/history'),
  get('/history?limit=3', 'recent-page1'),
  get((k) => `/history?limit=3&before=${k.json('recent-page1').next}`),

  // proposals
  send('POST', '/proposals', { name: 'delta', purpose: 'a worker, a review, a gate', source: GAMMA.replaceAll('gamma', 'delta'), from: 'conductor-1' }, undefined, 'p1'),
  pause,
  send('POST', '/proposals', { name: 'delta', purpose: 'broken on purpose', source: GAMMA_INVALID.replaceAll('gamma', 'delta') }, undefined, 'p2'),
  pause,
  send('POST', '/proposals', { name: 'alpha', purpose: 'alpha, proposed', source: alphaTake(3) }, undefined, 'p3'),
  pause,
  send('POST', '/proposals', { name: 'delta', purpose: '', source: GAMMA }),
  get('/proposals'),
  get((k) => `/proposals/${proposalId('p1')(k)}`),
  get('/proposals/000000000-00000000000000000000'),
  send('POST', (k) => `/proposals/${proposalId('p1')(k)}/save`),
  send('POST', (k) => `/proposals/${proposalId('p1')(k)}/save`),
  send('POST', (k) => `/proposals/${proposalId('p2')(k)}/dismiss`, { note: 'not this one' }),
  send('POST', (k) => `/proposals/${proposalId('p3')(k)}/save`, {}, { 'if-none-match': '*' }),
  send('POST', (k) => `/proposals/${proposalId('p3')(k)}/save`, { name: 'epsilon' }),
  get('/proposals?status=all'),
  get('/proposals?status=nonsense'),

  // reset and delete
  send('POST', '/settings/template-reset', { name: 'alpha' }, { 'if-match': NO_ETAG }),
  send('POST', '/settings/template-reset', { name: 'alpha' }, ifMatch('alpha-restored')),
  send('POST', '/settings/template-reset', { name: 'gamma' }),
  send('DELETE', '/templates/alpha'),
  send('DELETE', '/templates/gamma', undefined, { 'if-match': NO_ETAG }),
  send('DELETE', '/templates/gamma', undefined, ifMatch('gamma1')),
  get('/templates/gamma'),
  get('/templates/gamma/history'),

  // sync, without a remote
  get('/sync'),
  send('POST', '/sync'),
  get('/sync/templates/alpha'),
  send('POST', '/sync/templates/alpha/rebase'),
  send('POST', '/sync/templates/alpha/keep'),
  send('POST', '/sync/roles/worker/keep'),

  // refusals every route shares
  get('/nothing'),
  send('DELETE', '/health'),
  // the events stream never ends, so only its refusal is here: no HEAD, which would hold a stream open for nothing
  send('HEAD', '/events'),
  { method: 'POST', url: '/role', raw: '{"name": "critic",', headers: { 'content-type': 'application/json' } },
  { method: 'POST', url: '/role', raw: 'name=critic', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
  { method: 'POST', url: '/templates/propose', raw: JSON.stringify({ name: 'x', purpose: 'big', source: 'x'.repeat(1024 * 1024) }), headers: { 'content-type': 'application/json' } },
  { method: 'GET', url: '/status', headers: { host: 'evil.example' } },
  send('POST', '/role', { name: 'critic', reset: true }, { origin: 'http://evil.example' }),

  // where it all ended
  get('/status'),
  get('/templates'),
  get('/roles'),
  get('/history?limit=100'),
];

// ---------------------------------------------------------------- normalising

/** A proposal id: base36 milliseconds, then 20 random hex digits. */
const PROPOSAL = /(?<![0-9a-z])[0-9a-z]{9}-[0-9a-f]{20}(?![0-9a-z])/g;
/** A full commit id: sha1, 40 hex digits (an ETag is 64, so never matches). */
const COMMIT = /(?<![0-9a-zA-Z])[0-9a-f]{40}(?![0-9a-zA-Z])/g;
/** A commit's short form, as messages and diff labels carry it. */
const SHORT = /(?<![0-9a-zA-Z])[0-9a-f]{7}(?![0-9a-zA-Z])/g;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;
const EPOCH_MS = /(?<![0-9a-zA-Z])1\d{12}(?![0-9a-zA-Z])/g;

/**
 * What legitimately varies between runs, replaced by placeholders. Commit
 * and proposal ids are learnt from the answers that name them, numbered in
 * order of first appearance, and replaced wherever they appear after (a
 * URL, a request body, a later answer): so which step names which commit is
 * still compared, and an id a test wrote itself (all zeros) is left alone.
 * A time is not numbered: whether two writes fall in one second is the
 * clock's doing, not the service's.
 */
class Normaliser {
  private readonly commits = new Map<string, number>();
  private readonly proposals = new Map<string, number>();

  constructor(
    /** the temp folder, as given and as resolved */
    private readonly dirs: string[],
    /** epoch ms within this window are the run's clock */
    private readonly window: [number, number],
  ) {}

  /** Learns the ids an answer names; call it on the answer before its text. */
  learn(answer: string): void {
    for (const m of answer.matchAll(PROPOSAL)) this.number(this.proposals, m[0]);
    for (const m of answer.matchAll(COMMIT)) this.number(this.commits, m[0]);
  }

  text(s: string): string {
    let out = s;
    for (const d of this.dirs) out = out.replaceAll(d, '<tmp>');
    out = out.replace(PROPOSAL, (id) => (this.proposals.has(id) ? `<proposal-${this.proposals.get(id)}>` : id));
    out = out.replace(COMMIT, (c) => (this.commits.has(c) ? `<commit-${this.commits.get(c)}>` : c));
    const shorts = new Map([...this.commits].map(([c, n]) => [c.slice(0, 7), n]));
    out = out.replace(SHORT, (c) => (shorts.has(c) ? `<commit-${shorts.get(c)}:short>` : c));
    out = out.replace(ISO_TIME, '<time>');
    out = out.replace(EPOCH_MS, (n) => (Number(n) >= this.window[0] && Number(n) <= this.window[1] ? '<epoch-ms>' : n));
    return out;
  }

  private number(seen: Map<string, number>, v: string): void {
    if (!seen.has(v)) seen.set(v, seen.size + 1);
  }
}

// ---------------------------------------------------------------- running it

interface Entry {
  index: number;
  method: string;
  url: string;
  request: { headers: Record<string, string>; body: string | null };
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The temp harness and library root, and the app over them (one at a time: the root is locked). */
class Harness {
  app: App | null = null;
  private constructor(
    readonly dir: string,
    private readonly harness: string,
    private readonly root: string,
  ) {}

  static async make(): Promise<Harness> {
    const dir = await mkdtemp(join(tmpdir(), 'desk-replay-'));
    const h = new Harness(dir, join(dir, 'harness'), join(dir, 'root'));
    await h.put(ALPHA, h.harness, 'templates', 'alpha.yaml');
    await h.put(BETA, h.harness, 'templates', 'beta.yaml');
    await h.put(WORKER_MD, h.harness, 'roles', 'worker', 'role.md');
    await h.put(WORKER_KIT, h.harness, 'roles', 'worker', 'kit.json');
    await h.put(REVIEWER_MD, h.harness, 'roles', 'reviewer', 'role.md');
    return h;
  }

  async open(): Promise<App> {
    this.app = await buildApp({ libraryOptions: { spawner: testSpawner, root: this.root, harnessDir: this.harness }, web: false });
    return this.app;
  }

  async close(): Promise<void> {
    const app = this.app;
    this.app = null;
    await app?.close();
  }

  write(text: string, ...parts: string[]): Promise<void> {
    return this.put(text, this.root, ...parts);
  }

  async shipAndRestart(name: string, source: string): Promise<void> {
    await this.close();
    await this.put(source, this.harness, 'templates', `${name}.yaml`);
    await this.open();
  }

  async cleanup(): Promise<void> {
    await this.close();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async put(text: string, ...parts: string[]): Promise<void> {
    await mkdir(dirname(join(...parts)), { recursive: true });
    await writeFile(join(...parts), text);
  }
}

/** The request a step sends, from what earlier steps kept; a step that cannot be built says which it is. */
function requestOf(step: Request, kept: Kept, index: number): { url: string; headers: Record<string, string>; body: string | null } {
  try {
    const url = `${API}${resolve(step.url, kept)}`;
    const headers: Record<string, string> = { ...(step.headers ? resolve(step.headers, kept) : {}) };
    let body: string | null = null;
    if (step.raw !== undefined) body = step.raw;
    else if (step.json !== undefined) {
      body = JSON.stringify(resolve(step.json, kept));
      headers['content-type'] = 'application/json';
    }
    return { url, headers, body };
  } catch (e) {
    throw new Error(`replay: step ${index} (${step.method} ${typeof step.url === 'string' ? step.url : 'built from earlier answers'}) could not be built: ${(e as Error).message}`);
  }
}

/**
 * Runs the session over a fresh harness and returns what each request
 * answered, normalised. A step built from an earlier answer that changed
 * (no ETag, no versions) cannot be sent: the session stops there and says
 * why, and the comparison names the earlier step that differs.
 */
async function runSession(): Promise<{ entries: Entry[]; stopped: string | null }> {
  const started = Date.now();
  const h = await Harness.make();
  const norm = new Normaliser([...new Set([h.dir, await realpath(h.dir)])], [started - 86_400_000, started + 86_400_000]);
  const kept = new Kept();
  const entries: Entry[] = [];
  let stopped: string | null = null;
  try {
    await h.open();
    for (const step of SESSION) {
      if ('act' in step) {
        await step.act(h);
        continue;
      }
      let built: ReturnType<typeof requestOf>;
      try {
        built = requestOf(step, kept, entries.length);
      } catch (e) {
        stopped = (e as Error).message;
        break;
      }
      const { url, headers, body } = built;
      const r = await h.app!.inject({ method: step.method, url, headers, ...(body !== null ? { payload: body } : {}) });
      const etag = typeof r.headers.etag === 'string' ? r.headers.etag : undefined;
      let json: Answer = {};
      try {
        json = JSON.parse(r.body) as Answer;
      } catch {
        // not JSON: nothing to keep from it
      }
      if (step.keep) kept.set(step.keep, { status: r.statusCode, etag, json });
      const raw: Record<string, string> = {};
      for (const name of HEADERS) {
        const v = r.headers[name];
        if (v !== undefined) raw[name] = Array.isArray(v) ? v.join(', ') : String(v);
      }
      // the request was sent with what earlier answers named; this answer may name new ids
      const sentUrl = norm.text(url);
      const sentHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, norm.text(v)]));
      const sentBody = body === null ? null : body.length > 4096 ? `<${body.length} bytes>` : norm.text(body);
      // an error echoes what the client sent (an id made up to be unknown): ids are learnt from answers that succeeded
      if (r.statusCode < 300) norm.learn(`${Object.values(raw).join('\n')}\n${r.body}`);
      entries.push({
        index: entries.length,
        method: step.method,
        url: sentUrl,
        // a body over 4 KiB is kept as its size: it is there to be too large
        request: { headers: sentHeaders, body: sentBody },
        status: r.statusCode,
        headers: Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, norm.text(v)])),
        body: norm.text(r.body),
      });
    }
  } finally {
    await h.cleanup();
  }
  return { entries, stopped };
}

/** Where two strings first differ, with some text either side. */
function around(expected: string, actual: string): string {
  let i = 0;
  while (i < expected.length && i < actual.length && expected[i] === actual[i]) i++;
  const from = Math.max(0, i - 120);
  return `first difference at character ${i}\n  expected: …${JSON.stringify(expected.slice(from, i + 200))}\n  actual:   …${JSON.stringify(actual.slice(from, i + 200))}`;
}

function describeDifference(e: Entry, a: Entry): string {
  const where = `step ${e.index}: ${e.method} ${e.url}`;
  const parts: string[] = [];
  if (a.method !== e.method || a.url !== e.url) parts.push(`request: expected ${e.method} ${e.url}, sent ${a.method} ${a.url}`);
  if (JSON.stringify(a.request) !== JSON.stringify(e.request)) parts.push(`request headers/body:\n  expected ${JSON.stringify(e.request).slice(0, 400)}\n  actual   ${JSON.stringify(a.request).slice(0, 400)}`);
  if (a.status !== e.status) parts.push(`status: expected ${e.status}, actual ${a.status}`);
  if (JSON.stringify(a.headers) !== JSON.stringify(e.headers)) parts.push(`headers:\n  expected ${JSON.stringify(e.headers)}\n  actual   ${JSON.stringify(a.headers)}`);
  if (a.body !== e.body) parts.push(`body: ${around(e.body, a.body)}`);
  return `${where}\n${parts.join('\n')}`;
}

const same = (e: Entry, a: Entry) => JSON.stringify(e) === JSON.stringify(a);

test('the recorded HTTP session answers byte for byte the same', async () => {
  const { entries: actual, stopped } = await runSession();
  if (RECORD) {
    if (stopped) throw new Error(stopped);
    await mkdir(dirname(FIXTURE), { recursive: true });
    await writeFile(FIXTURE, `${JSON.stringify({ about: 'test/http-replay.test.ts: one entry per request; REPLAY_RECORD=1 rewrites it', headers: HEADERS, steps: actual }, null, 2)}\n`);
    return;
  }
  const text = await readFile(FIXTURE, 'utf8').catch(() => null);
  if (text === null) throw new Error(`no recording at ${FIXTURE}: record it with REPLAY_RECORD=1`);
  const expected = (JSON.parse(text) as { steps: Entry[] }).steps;
  const differing = expected.flatMap((e, i) => (actual[i] && same(e, actual[i]) ? [] : [i]));
  if (differing.length || actual.length !== expected.length || stopped) {
    const first = differing[0];
    const others = differing.slice(1);
    const name = (i: number) => `${i} ${expected[i]!.method} ${expected[i]!.url}`;
    const lines = [
      `${differing.length} of ${expected.length} recorded steps differ${actual.length !== expected.length ? ` (the session made ${actual.length} requests)` : ''}`,
      first === undefined ? '' : actual[first] ? describeDifference(expected[first]!, actual[first]) : `step ${name(first)} was not sent`,
      others.length ? `also differ: ${others.slice(0, 30).map(name).join('; ')}${others.length > 30 ? `; and ${others.length - 30} more` : ''}` : '',
      stopped ? `the session stopped: ${stopped}` : '',
    ];
    expect.fail(lines.filter(Boolean).join('\n'));
  }
  expect(actual.length).toBe(expected.length);
});
