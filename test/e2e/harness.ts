/**
 * Shared setup for the browser tests and the screenshot script: bundle the
 * page if it is stale, start the app on a temp library root on a free
 * loopback port, and launch the system's Chromium through playwright-core
 * (never a downloaded browser): CHROMIUM_PATH, default Debian's
 * /usr/bin/chromium.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { harnessDir, packageRoot } from '../../src/paths.js';
import { runSync } from '../children.js';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Why the suite cannot run here, or null. Outside CI a missing browser skips; in CI it fails. */
export function browserMissing(): string | null {
  if (existsSync(CHROMIUM)) return null;
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing; the e2e suite must run in CI (apt-get install chromium, or set CHROMIUM_PATH)`);
  return `${CHROMIUM} is missing: skipping the settings-page e2e suite (apt-get install chromium, or set CHROMIUM_PATH to a Chromium or Chrome binary)`;
}

/**
 * Bundles the page (scripts/build-web.mjs) when dist/web/index.html is missing
 * or older than anything the bundle is made of: the page's sources, the
 * validator and schemas it bundles (src/template, src/schema), or the build
 * script. No type check here (esbuild strips types): a helper's half-done
 * file elsewhere does not stop the browser tests; `npm run typecheck` does.
 * Test files run in parallel forks, so one build at a time (a lock folder);
 * the others wait and then find the output fresh.
 */
export function buildWeb(): void {
  const index = join(packageRoot, 'dist', 'web', 'index.html');
  const inputs = [join(packageRoot, 'src', 'web'), join(packageRoot, 'src', 'template'), join(packageRoot, 'src', 'schema'), join(packageRoot, 'scripts')];
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
      const p = join(dir, e.name);
      return Math.max(m, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
    }, statSync(dir).mtimeMs);
  const stale = () => !existsSync(index) || statSync(index).mtimeMs < Math.max(...inputs.map(newest));
  if (!stale()) return;
  mkdirSync(join(packageRoot, 'dist'), { recursive: true });
  const lock = join(packageRoot, 'dist', '.web-build.lock');
  // a web build takes seconds; three minutes covers a busy 2-core machine before calling the lock stale
  const until = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > until) throw new Error(`web build: ${lock} held for three minutes; remove it if no build runs`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (!stale()) return;
    const r = runSync(process.execPath, [join(packageRoot, 'scripts', 'build-web.mjs')], { cwd: packageRoot, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`web build failed:\n${r.stdout}${r.stderr}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface Served {
  app: App;
  root: string;
  base: string;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** DESK_TOKEN: every /api request then needs the bearer token */
  token?: string;
  /** the library root to use (kept across restarts); default a fresh temp folder */
  root?: string;
  /** shipped templates and roles; default the repo's harness/ */
  harnessDir?: string;
  /** the port to listen on (a service started again where it was); default a free one */
  port?: number;
}

export async function serve(opts: ServeOptions = {}): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'desk-e2e-'));
  const root = opts.root ?? join(dir, 'library');
  const app = await buildApp({
    libraryOptions: { root, ...(opts.harnessDir ? { harnessDir: opts.harnessDir } : {}) },
    ...(opts.token ? { token: opts.token } : {}),
  });
  await app.listen({ port: opts.port ?? 0, host: '127.0.0.1' });
  const addr = app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no port');
  return {
    app,
    root,
    base: `http://127.0.0.1:${addr.port}`,
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A call to the served API as the page makes it: an Origin the guard accepts, a JSON body when there is one. */
export function callApi(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/api/desk${path}`, {
    method,
    headers: { origin: base, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

export interface ShippedMoved extends Served {
  /** the copy of the harness the service ships from */
  harness: string;
  /** the shipped text the copy was saved against, the copy, and the shipped text now */
  shipped: string;
  copy: string;
  moved: string;
}

/**
 * A copy of an older shipped version: `name` saved as `mine(shipped)`, then
 * the shipped file changed to `next(shipped)` and the service started again
 * (shipped files are read once, at start), on a copy of the repo's harness.
 * close() stops the service and removes both folders.
 */
export async function shippedMovedUnder(name: string, mine: (shipped: string) => string, next: (shipped: string) => string): Promise<ShippedMoved> {
  const dir = mkdtempSync(join(tmpdir(), 'desk-e2e-shipped-'));
  const harness = join(dir, 'harness');
  const root = join(dir, 'library');
  const file = join(harness, 'templates', `${name}.yaml`);
  let served: Served | null = null;
  try {
    cpSync(harnessDir, harness, { recursive: true });
    served = await serve({ root, harnessDir: harness });
    const shipped = readFileSync(file, 'utf8');
    const copy = mine(shipped);
    const r = await callApi(served.base, 'PUT', `/templates/${name}`, { source: copy });
    if (r.status !== 200) throw new Error(`saving the copy of ${name} answered ${r.status}`);
    const first = served;
    served = null;
    await first.close();
    const moved = next(shipped);
    writeFileSync(file, moved);
    const again = await serve({ root, harnessDir: harness });
    return {
      ...again,
      harness,
      shipped,
      copy,
      moved,
      async close() {
        await again.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await served?.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

export interface BrowserTest {
  /** a new tab with a 10 s default timeout, closed after the test */
  page(opts?: { viewport?: { width: number; height: number } }): Promise<Page>;
  /** closes `x` after the test (even when it failed), after its tabs, the last deferred first; answers `x` */
  defer<T extends { close(): unknown }>(x: T): T;
  /** a new temp folder, removed after the test (deferred) */
  tempDir(prefix: string): string;
}

/**
 * The hooks a browser test file shares, registered in the calling describe:
 * the page bundled and one browser launched for the file, and per test the
 * tabs it opened and what it deferred (services, temp folders) closed after.
 */
export function useBrowser(): BrowserTest {
  let browser: Browser | undefined;
  const cspRefusals: string[] = [];
  const pages: Page[] = [];
  const deferred: { close(): unknown }[] = [];
  beforeAll(async () => {
    buildWeb();
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    // each one closed even when one before it failed; the first failure is the test's
    const failures: unknown[] = [];
    const refused = cspRefusals.splice(0);
    if (refused.length) failures.push(new Error(`the page broke its Content Security Policy:\n${refused.join('\n')}`));
    for (const x of [...pages.splice(0), ...deferred.splice(0).reverse()]) await Promise.resolve(x.close()).catch((e: unknown) => failures.push(e));
    if (failures.length) throw failures[0];
  });
  return {
    async page(opts = {}) {
      const page = await browser!.newPage(opts.viewport ? { viewport: opts.viewport } : {});
      page.setDefaultTimeout(10_000);
      watchCsp(page, cspRefusals);
      pages.push(page);
      return page;
    },
    defer(x) {
      deferred.push(x);
      return x;
    },
    tempDir(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      deferred.push({ close: () => rmSync(dir, { recursive: true, force: true }) });
      return dir;
    },
  };
}

/**
 * useBrowser with, per test, a fresh service and a new tab. `use` hands each
 * test's pair to the file's own variables, so test bodies read `served` and
 * `page` as before.
 */
export function usePage(use: (served: Served, page: Page) => void, opts: { serve?: ServeOptions; init?: (page: Page) => Promise<unknown> } = {}): void {
  const t = useBrowser();
  beforeEach(async () => {
    const served = t.defer(await serve(opts.serve));
    const page = await t.page();
    await opts.init?.(page);
    use(served, page);
  });
}

/**
 * Every console message about the Content Security Policy goes into `out`:
 * the page must never try what its policy refuses (an inline style, a
 * foreign script), so useBrowser fails the test that saw one. Tabs made
 * outside useBrowser call it themselves.
 */
export function watchCsp(page: Page, out: string[]): void {
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) out.push(`${m.type()}: ${m.text()}`);
  });
}

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * The page's own event listeners on the document and the window, counted by
 * type (`document.selectionchange`: 1), through DevTools' getEventListeners.
 * A CodeMirror view adds selectionchange, resize and scroll listeners until
 * it is destroyed, so these counts tell whether views were let go.
 */
export async function pageListeners(page: Page): Promise<Record<string, number>> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const out: Record<string, number> = {};
    for (const target of ['document', 'window']) {
      const { result } = await cdp.send('Runtime.evaluate', { expression: target });
      const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId! });
      for (const l of listeners) out[`${target}.${l.type}`] = (out[`${target}.${l.type}`] ?? 0) + 1;
    }
    return out;
  } finally {
    await cdp.detach();
  }
}
