/**
 * docs/api.md's examples, executed: every ```console block, in the order the
 * page gives them, against one app over the shipped harness and a fresh
 * library root (`app.inject`, no port), each answer compared with the one
 * the page shows under its trimming rule. The page's conventions for this
 * are at its top ("Running the examples"):
 *
 * - an id, ETag or commit an example sends is the one an earlier answer
 *   showed: the runner learns each such value from the answer it compares
 *   (page value → this run's value) and sends this run's in its place;
 * - a volatile value (a key ending in `id`, `etag`, `commit`, `cursor`,
 *   `next`, `_at`, the key `at`, or any ISO time) is compared by type
 *   only, and learned;
 * - a `@file` body is one of BODIES below;
 * - a block the runner cannot reproduce (a team remote, a second harness, a
 *   `| jq` filter) says so in a `<!-- not run: why -->` line just above it,
 *   and is listed, not run; `<!-- run: on a server without a library
 *   root -->` runs it on a second app started with no root.
 *
 * DOCS_API_RENDER=FILE writes each example that does not reproduce as this
 * run answered it, trimmed by the page's rule (see `render`), to paste back.
 *
 * A failure names the example's heading and line, so a section added later
 * that does not run says where it is.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type App, buildApp } from '../src/app.js';
import { harnessDir } from '../src/paths.js';
import { testSpawner } from './test-spawner.js';

const doc = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');
const shipped = (name: string) => readFileSync(join(harnessDir, 'templates', `${name}.yaml`), 'utf8');
const QUICK_FIX = shipped('quick-fix');
/** The conductor's custom template of the proposal examples: quick-fix under its own name. */
const MY_FIX = QUICK_FIX.replace('name: quick-fix', 'name: my-fix').replace('base: ticket-completion', 'base: quick-fix');
const MY_FIX_PURPOSE = 'quick-fix for the flaky login test, without the model review';

/**
 * The request bodies the page names as `@file` (docs/api.md, "Running the
 * examples"): what each example sends, built from the shipped templates so
 * they follow them.
 */
const BODIES: Record<string, () => { type: string; body: string }> = {
  // the worker's model pinned: the diff and history examples show this one line
  'edited.json': () => json({ source: QUICK_FIX.replace(/(\n {4}role: worker\n {4}profile: workspace_write\n)/, '$1    model: claude\n') }),
  'no-profile.json': () => json({ source: QUICK_FIX.replace(/\n {4}profile: workspace_write\n/, '\n') }),
  'quick-fix.json': () => json({ source: QUICK_FIX }),
  'ticket-input.json': () => json({ source: 'template:\n  name: ticket-input\n' }),
  'with-force.json': () => json({ source: QUICK_FIX, force: true }),
  'quick-fix.yaml': () => ({ type: 'text/yaml', body: QUICK_FIX }),
  'empty.json': () => json({}),
  'my-fix.json': () => json({ source: MY_FIX }),
  'propose.json': () => json({ name: 'my-fix', purpose: MY_FIX_PURPOSE, source: MY_FIX }),
  'proposal.json': () => json({ name: 'my-fix', purpose: MY_FIX_PURPOSE, source: MY_FIX, from: 'conductor' }),
  'proposal-2.json': () => json({ name: 'my-fix', purpose: 'the flaky login test, fixed the short way', source: MY_FIX, from: 'triage' }),
  'two-line-purpose.json': () => json({ name: 'my-fix', purpose: 'quick-fix for the flaky login test\nwithout the model review', source: MY_FIX }),
  'worker.json': () =>
    json({
      name: 'worker',
      role_md: `${readFileSync(join(harnessDir, 'roles', 'worker', 'role.md'), 'utf8').trimEnd()}\n\nRun the flaky login test three times before you hand over.\n`,
      kit: JSON.parse(readFileSync(join(harnessDir, 'roles', 'worker', 'kit.json'), 'utf8')),
    }),
};

/** A body the page spells out in its prose, ``with `draft.json` `{…}` ``, wins over BODIES. */
const PROSE_BODIES = new Map([...doc.matchAll(/with `([a-z0-9-]+\.json)` `(\{.*?\})`/g)].map((m) => [m[1]!, m[2]!]));

function body(file: string): { type: string; body: string } | undefined {
  const prose = PROSE_BODIES.get(file);
  return prose !== undefined ? { type: 'application/json', body: prose } : BODIES[file]?.();
}

function json(v: unknown) {
  return { type: 'application/json', body: JSON.stringify(v) };
}

interface Example {
  heading: string;
  /** 1-based line of the block's `$ curl` */
  line: number;
  command: string;
  /** the status line's code, when the page shows the head (`curl -si`) */
  status: number | null;
  headers: Map<string, string>;
  body: string;
  notRun: string | null;
  /** `<!-- run: on a server without a library root -->`: this one runs on a second server, started with no root */
  noRoot: boolean;
}

function examples(): Example[] {
  const lines = doc.split('\n');
  const out: Example[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^#{1,6} /.test(l)) heading = l.replace(/^#+ /, '');
    if (l !== '```console') continue;
    const end = lines.indexOf('```', i + 1);
    const block = lines.slice(i + 1, end);
    const notRun = /^<!-- not run: (.+) -->$/.exec(lines[i - 1] ?? '')?.[1] ?? null;
    const [command = '', ...rest] = block;
    const blank = rest.indexOf('');
    const head = rest[0]?.startsWith('HTTP/') ? rest.slice(0, blank === -1 ? rest.length : blank) : [];
    const headers = new Map(head.slice(1).map((h) => [h.slice(0, h.indexOf(':')).toLowerCase(), h.slice(h.indexOf(':') + 1).trim()]));
    const status = head[0] ? Number(head[0].split(' ')[1]) : null;
    const noRoot = lines[i - 1] === '<!-- run: on a server without a library root -->';
    out.push({ heading, line: i + 2, command, status, headers, body: rest.slice(head.length).join('\n').trim(), notRun, noRoot });
    i = end;
  }
  return out;
}

/** A shell line split as sh would: single and double quotes, no expansions. */
function words(s: string): string[] {
  const out: string[] = [];
  let cur: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "'") {
      const j = s.indexOf("'", i + 1);
      cur = (cur ?? '') + s.slice(i + 1, j);
      i = j;
    } else if (c === '"') {
      const j = s.indexOf('"', i + 1);
      cur = (cur ?? '') + s.slice(i + 1, j);
      i = j;
    } else if (c === ' ') {
      if (cur !== null) out.push(cur);
      cur = null;
    } else cur = (cur ?? '') + c;
  }
  if (cur !== null) out.push(cur);
  return out;
}

interface Request {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

function curl(command: string): Request {
  const w = words(command.replace(/^\$ /, ''));
  if (w[0] !== 'curl') throw new Error(`not a curl command: ${command}`);
  if (w.includes('|')) throw new Error('a pipe: mark the block <!-- not run: … -->');
  const req: Request = { method: 'GET', url: '', headers: {} };
  for (let i = 1; i < w.length; i++) {
    const a = w[i]!;
    if (a === '-X') req.method = w[++i]!;
    else if (a === '-H') {
      const h = w[++i]!;
      req.headers[h.slice(0, h.indexOf(':')).trim().toLowerCase()] = h.slice(h.indexOf(':') + 1).trim();
    } else if (a === '-d' || a === '--data-binary') {
      const d = w[++i]!;
      if (d.startsWith('@')) {
        const file = body(d.slice(1));
        if (!file) throw new Error(`no body ${d}: spell it out in the page (with \`${d.slice(1)}\` \`{…}\`) or add it to BODIES (test/docs-api-run.test.ts)`);
        req.payload = substitute(file.body);
        req.headers['content-type'] ??= file.type;
      } else req.payload = d;
      if (req.method === 'GET') req.method = 'POST';
    } else if (a.startsWith('http')) {
      const u = new URL(a);
      req.url = u.pathname + u.search;
      req.headers.host = u.host;
    }
    else if (!/^-s?i?$/.test(a)) throw new Error(`curl option ${a} is not known to the runner`);
  }
  return req;
}

/** page value → this run's value: ids, ETags, commits learned from answers. */
const learned = new Map<string, string>();

function substitute(s: string): string {
  let out = s;
  for (const [from, to] of [...learned].sort((a, b) => b[0].length - a[0].length)) if (from !== to) out = out.replaceAll(from, to);
  // a short commit (7 or more hex digits) of a learned full one
  return out.replace(/\b[0-9a-f]{7,39}\b/g, (t) => {
    for (const [from, to] of learned) if (/^[0-9a-f]{40}$/.test(from) && from.startsWith(t)) return to.slice(0, t.length);
    return t;
  });
}

const VOLATILE_KEY = /(?:^id|_id|etag|commit|cursor|^next|_at|^at|^time)$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;
const MORE = /^… (\d+) more$/;

/** The first answer that shows a page value decides it (itself, when the run gave the same): a later example showing the same value is held to it. */
function learn(from: string, to: string): void {
  if (from.length >= 7 && !from.endsWith('…') && !learned.has(from)) learned.set(from, to);
}

/** Where `actual` breaks the page's `expected` under the trimming rule, as `path: why`. */
function differences(expected: unknown, actual: unknown, path = '', key = ''): string[] {
  if (expected === '…') return [];
  if (typeof expected === 'string') {
    if (typeof actual !== 'string') return [`${path}: ${JSON.stringify(actual)?.slice(0, 80)} is not a string`];
    if (VOLATILE_KEY.test(key) || TIME.test(expected)) {
      learn(expected, actual);
      return [];
    }
    const want = substitute(expected);
    if (want.endsWith('…') && want.length > 1) return actual.startsWith(want.slice(0, -1)) ? [] : [`${path}: ${JSON.stringify(actual.slice(0, 100))} does not start with ${JSON.stringify(want.slice(0, -1))}`];
    return want === actual ? [] : [`${path}: ${JSON.stringify(actual.slice(0, 100))}, not ${JSON.stringify(want)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: not a list`];
    const more = typeof expected.at(-1) === 'string' ? MORE.exec(expected.at(-1) as string) : null;
    const shown = more ? expected.slice(0, -1) : expected;
    const length = shown.length + (more ? Number(more[1]) : 0);
    const own = actual.length === length ? [] : [`${path}: ${actual.length} items, not ${length}`];
    return [...own, ...shown.flatMap((e, i) => differences(e, actual[i], `${path}/${i}`, key))];
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: not an object`];
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const open = Object.hasOwn(e, '…');
    const keys = Object.keys(e).filter((k) => k !== '…');
    const missing = keys.filter((k) => !Object.hasOwn(a, k)).map((k) => `${path}/${k}: missing`);
    const extra = open ? [] : Object.keys(a).filter((k) => !Object.hasOwn(e, k)).map((k) => `${path}/${k}: not shown`);
    return [...missing, ...extra, ...keys.filter((k) => Object.hasOwn(a, k)).flatMap((k) => differences(e[k], a[k], `${path}/${k}`, k))];
  }
  return Object.is(expected, actual) ? [] : [`${path}: ${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`];
}

let dir: string;
let app: App;
let rootless: App | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-docs-run-'));
  // the page's server was started in /tmp/desk-run; this one's folder stands in for it
  learned.set('/tmp/desk-run', dir);
  // the author the page's history answers show (DESK_AUTHOR's default names the machine)
  app = await buildApp({ libraryOptions: { spawner: testSpawner, root: join(dir, '.desk-library'), history: { author: 'desk <desk@localhost>' } }, web: false, host: '127.0.0.1', port: 8787 });
});
afterAll(async () => {
  if (RENDER) writeFileSync(RENDER, JSON.stringify(rendered, null, 2));
  await app?.close();
  await rootless?.close();
  await rm(dir, { recursive: true, force: true });
});

const all = examples();

/**
 * DOCS_API_RENDER=FILE: each example that does not reproduce, written to
 * FILE as this run answered it under the page's trimming rule (the page's
 * own volatile values and left-out keys kept), for a person to paste back.
 */
const RENDER = process.env.DOCS_API_RENDER;
const rendered: { line: number; head: string[]; body: unknown }[] = [];

/** This run's ids and commits inside a text, put back as the page shows them. */
function unsubstitute(s: string): string {
  let out = s;
  for (const [from, to] of [...learned].sort((a, b) => b[1].length - a[1].length)) if (from !== to && to.length >= 7) out = out.replaceAll(to, from);
  return out.replace(/\b[0-9a-f]{7,39}\b/g, (t) => {
    for (const [from, to] of learned) if (/^[0-9a-f]{40}$/.test(to) && to.startsWith(t) && /^[0-9a-f]{40}$/.test(from)) return from.slice(0, t.length);
    return t;
  });
}

function render(expected: unknown, actual: unknown, key = ''): unknown {
  if (expected === '…') return '…';
  if (typeof actual === 'string') {
    if (typeof expected === 'string' && (VOLATILE_KEY.test(key) || TIME.test(expected)) && !/^"?0+"?$/.test(expected)) {
      // the page value this run's value stands for, so the page stays consistent with itself
      for (const [from, to] of learned) if (to === actual) return from;
      return expected;
    }
    const shown = unsubstitute(actual);
    if (key === 'unified' && typeof expected === 'string' && !expected.endsWith('…')) return shown;
    return shown.length > 100 ? `${shown.slice(0, 100)}…` : shown;
  }
  if (Array.isArray(actual)) {
    const e = Array.isArray(expected) ? expected : [];
    const items = actual.length > 3 ? [...actual.slice(0, 2).map((a, i) => render(e[i], a, key)), `… ${actual.length - 2} more`] : actual.map((a, i) => render(e[i], a, key));
    return items;
  }
  if (actual !== null && typeof actual === 'object') {
    const e = expected !== null && typeof expected === 'object' && !Array.isArray(expected) ? (expected as Record<string, unknown>) : {};
    const a = actual as Record<string, unknown>;
    const open = Object.hasOwn(e, '…');
    const keys = open ? Object.keys(e).filter((k) => k !== '…' && Object.hasOwn(a, k)) : Object.keys(a);
    const out = Object.fromEntries(keys.map((k) => [k, render(e[k], a[k], k)]));
    return open ? { ...out, '…': '…' } : out;
  }
  return actual;
}

describe('docs/api.md examples, run in order', () => {
  test('there are examples, most of them run', () => {
    expect(all.length).toBeGreaterThanOrEqual(25);
    expect(all.filter((e) => e.notRun).length).toBeLessThan(all.length / 2);
  });

  test.each(all.map((e) => [`${e.heading} (docs/api.md:${e.line})`, e] as const))('%s', async (where, e) => {
    if (e.notRun) return;
    const req = curl(substitute(e.command));
    if (e.noRoot && !rootless) rootless = await buildApp({ libraryOptions: { spawner: testSpawner, root: null }, web: false, host: '127.0.0.1', port: 8787 });
    const server = e.noRoot && rootless ? rootless : app;
    const res = await server.inject({ method: req.method as 'GET', url: req.url, headers: req.headers, ...(req.payload !== undefined ? { payload: req.payload } : {}) });
    const problems: string[] = [];
    if (e.status !== null && res.statusCode !== e.status) problems.push(`status ${res.statusCode}, not ${e.status}: ${res.body.slice(0, 300)}`);
    const etag = e.headers.get('etag');
    if (etag !== undefined) {
      if (res.headers.etag === undefined) problems.push('no etag header');
      else learn(etag, String(res.headers.etag));
    }
    const type = e.headers.get('content-type');
    if (type !== undefined && res.headers['content-type'] !== type) problems.push(`content-type ${res.headers['content-type']}, not ${type}`);
    if (e.body === '') {
      if (res.body !== '' && e.status !== null) problems.push(`a body, none shown: ${res.body.slice(0, 100)}`);
    } else {
      let expected: unknown;
      try {
        expected = JSON.parse(e.body);
      } catch {
        expected = e.body;
      }
      let actual: unknown;
      try {
        actual = JSON.parse(res.body);
      } catch {
        actual = res.body;
      }
      problems.push(...differences(expected, actual));
    }
    // the heading and line first: a section added later that does not run says where it is
    if (problems.length && RENDER) {
      const head = e.status === null ? [] : [`HTTP/1.1 ${res.statusCode} ${STATUS_CODES[res.statusCode]}`, ...(res.headers.etag ? [`etag: ${[...learned].find(([, to]) => to === res.headers.etag)?.[0] ?? res.headers.etag}`] : []), ...(res.headers['content-type'] ? [`content-type: ${res.headers['content-type']}`] : [])];
      let actual: unknown = res.body;
      try {
        actual = JSON.parse(res.body);
      } catch {}
      let expected: unknown = e.body;
      try {
        expected = JSON.parse(e.body);
      } catch {}
      rendered.push({ line: e.line, head, body: res.body === '' ? '' : render(expected, actual) });
    }
    if (problems.length) throw new Error(`${where} does not reproduce: ${e.command.slice(0, 160)}\n  ${problems.join('\n  ')}`);
  });
});
