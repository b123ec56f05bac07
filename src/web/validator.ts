/**
 * The page's copy of the one validator (src/template/validate.ts, the module
 * the server runs on every save), so problems show while the operator types.
 * It runs in a module Worker (validator-worker.ts): a 128 KiB template takes
 * tens of milliseconds to check, too long for the main thread between
 * keystrokes. The names it checks against come from GET /api/desk/catalogue,
 * fetched once and again after `invalidateCatalogue()` (roles or templates
 * changed: the events stream's hint). The server still validates each save.
 */
import { call } from './api.js';
import type { CatalogueAnswer } from '../schema/catalogue.js';
import type { Problem } from '../schema/errors.js';
import type { FromWorker, ToWorker } from './validator-worker.js';

/** the worker's hashed URL, written into index.html by scripts/build-web.mjs */
const WORKER_META = 'desk-validator-worker';

interface Job {
  source: string;
  name: string | undefined;
  waiting: ((p: Problem[]) => void)[];
  failed: ((e: unknown) => void)[];
}

let worker: Worker | null = null;
let catalogue: Promise<void> | null = null;
let nextId = 1;
/** the check the worker is running, by its id */
let running: { id: number; job: Job } | null = null;
/** the newest check asked for while one ran; an older one still waiting is folded into it */
let queued: Job | null = null;

/**
 * The problems the server would answer for this source saved as `name`
 * (unchecked when undefined): code, path, line, column, severity, message.
 * Checks run one at a time, newest first: a call overtaken by a later one
 * before its turn resolves with the later source's problems (an editor lints
 * only its current text anyway).
 */
export function checkSource(source: string, name: string | undefined): Promise<Problem[]> {
  return new Promise((resolve, reject) => {
    const job: Job = queued ?? { source, name, waiting: [], failed: [] };
    job.source = source;
    job.name = name;
    job.waiting.push(resolve);
    job.failed.push(reject);
    queued = job;
    void pump();
  });
}

/** Roles or templates changed: the next check fetches the catalogue again. */
export function invalidateCatalogue(): void {
  catalogue = null;
}

async function pump(): Promise<void> {
  if (running || !queued) return;
  const job = queued;
  queued = null;
  const id = nextId++;
  running = { id, job };
  try {
    const w = start();
    if (!catalogue) catalogue = loadCatalogue(w);
    await catalogue;
    if (running?.id !== id) return;
    const message: ToWorker = { id, source: job.source, name: job.name };
    w.postMessage(message);
  } catch (e) {
    finish(id, null, e);
  }
}

function finish(id: number, problems: Problem[] | null, error?: unknown): void {
  if (running?.id !== id) return;
  const { job } = running;
  running = null;
  if (problems) for (const r of job.waiting) r(problems);
  else for (const r of job.failed) r(error);
  void pump();
}

async function loadCatalogue(w: Worker): Promise<void> {
  try {
    const { body } = await call<CatalogueAnswer>('GET', '/catalogue');
    const message: ToWorker = { catalogue: body };
    w.postMessage(message);
  } catch (e) {
    catalogue = null; // try again on the next check
    throw e;
  }
}

function start(): Worker {
  if (worker) return worker;
  const url = document.querySelector<HTMLMetaElement>(`meta[name="${WORKER_META}"]`)?.content;
  if (!url) throw new Error('the page was built without its validator worker (npm run build:web)');
  const w = new Worker(url, { type: 'module', name: 'validator' });
  w.onmessage = (e: MessageEvent<FromWorker>) => finish(e.data.id, e.data.problems);
  w.onerror = (e) => {
    // a worker that failed to load or threw: drop it, so the next check starts a fresh one
    e.preventDefault();
    worker = null;
    catalogue = null;
    w.terminate();
    if (running) finish(running.id, null, new Error(`the validator worker failed: ${e.message || 'could not load'}`));
  };
  worker = w;
  return w;
}
