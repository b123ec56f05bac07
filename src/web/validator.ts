/**
 * The page's copy of the one validator (src/template/validate.ts, the module
 * the server runs on every save), so problems show while the operator types.
 * A text up to MAIN_THREAD_MAX is checked on the main thread (a few
 * milliseconds; the editor asks once the key is painted, editor.ts); a
 * longer one in a module Worker (validator-worker.ts): a 128 KiB
 * template takes tens of milliseconds to check, too long for the main thread
 * between keystrokes. The names it checks against come from GET
 * /api/desk/catalogue, fetched once and again after `invalidateCatalogue()`
 * (roles or templates changed: the events stream's hint). The server still
 * validates each save.
 */
import { call } from './api.js';
import type { CatalogueAnswer } from '../schema/catalogue.js';
import type { Problem } from '../schema/errors.js';
import type { Catalogue } from '../template/model.js';
import { whenIdle } from './dom.js';
import { skeleton } from './format.js';
import { toCatalogue } from './validator-core.js';
import type { FromWorker, ToWorker } from './validator-worker.js';

/**
 * Up to this many characters a check runs on the main thread: every shipped
 * template (≤ 6 KB, a few ms) is checked in one task, where the Worker's
 * answer waited for a later frame (bench `page`, keystroke → problems p95 on
 * the shipped templates: 27–64 → 10–41 ms, when the check ran in the key's
 * own task).
 */
export const MAIN_THREAD_MAX = 16 * 1024;

/** the worker's hashed URL, written into index.html by scripts/build-web.mjs */
const WORKER_META = 'desk-validator-worker';

interface Job {
  source: string;
  name: string | undefined;
  waiting: ((p: Problem[]) => void)[];
  failed: ((e: unknown) => void)[];
}

let worker: Worker | null = null;
/** GET /api/desk/catalogue, once for the main thread's checks, the Worker and completion (catalogueAnswer) */
let answer: Promise<CatalogueAnswer> | null = null;
/** the Worker has been sent the current answer */
let catalogue: Promise<void> | null = null;
/** the answer as the main thread's checks take it, with the answer it was made from */
let here: { from: Promise<CatalogueAnswer>; catalogue: Catalogue } | null = null;
/**
 * The validator's code for the main thread, loaded with the first check: the
 * list view imports this module (invalidateCatalogue) and must not load it.
 */
let validator: Promise<typeof import('../template/validate.js')> | null = null;
let validate: typeof import('../template/validate.js').validateTemplate | null = null;
let nextId = 1;
/** the check the worker is running, by its id; `warm` when nobody waits for it */
let running: { id: number; job: Job; warm: boolean } | null = null;
/** the newest check asked for while one ran; an older one still waiting is folded into it */
let queued: Job | null = null;
/** warm-up checks (warmUp), run only while no check is asked for */
let warming: { source: string; left: number } | null = null;

/**
 * The problems the server would answer for this source saved as `name`
 * (unchecked when undefined): code, path, line, column, severity, message.
 * Checks run one at a time, newest first: a call overtaken by a later one
 * before its turn resolves with the later source's problems (an editor lints
 * only its current text anyway).
 */
export function checkSource(source: string, name: string | undefined): Promise<Problem[]> {
  // a check still in the Worker goes first, so results come in order
  if (source.length <= MAIN_THREAD_MAX && (!running || running.warm) && !queued) return checkHere(source, name);
  return inWorker(source, name);
}

function inWorker(source: string, name: string | undefined): Promise<Problem[]> {
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
  answer = null;
  catalogue = null;
  here = null;
}

/** The names the checks take (roles, templates, kits): fetched once until invalidated, and again after a failure. */
export function catalogueAnswer(): Promise<CatalogueAnswer> {
  if (answer) return answer;
  const mine = call<CatalogueAnswer>('GET', '/catalogue').then((r) => r.body);
  answer = mine;
  mine.catch(() => {
    if (answer === mine) answer = null; // try again on the next check
  });
  return mine;
}

/**
 * For a long text, Worker checks of a small skeleton before the first key: a
 * cold check is several times slower than a warm one. Small, so that a key's
 * check waits a few milliseconds behind one, not the hundreds of a cold check
 * of a long text; many, so the validator's code is compiled before the long
 * text needs it (bench `page`, the cap: p95 128–140 → 103 ms).
 */
const WORKER_WARM_ROUNDS = 10;

/**
 * Readies the place this text's keystrokes will be checked, when the editor
 * opens: the catalogue fetched, the validator's code compiled. Results are
 * dropped.
 */
export function warmUp(source: string, name: string | undefined): void {
  if (source.length <= MAIN_THREAD_MAX) {
    warmHere(source, name, MAIN_WARM_ROUNDS);
    return;
  }
  warming = { source: skeleton(name ?? 'warm-up', 'warm-up'), left: WORKER_WARM_ROUNDS };
  void pump();
}

/**
 * Main-thread checks of the opened text, one per idle moment: the first keys
 * typed after the page opened met a validator V8 had run once (bench `page`,
 * keystroke → problems of the first keys, p95: 35–43 → 26–34 ms). A key
 * waits at most for the one check running when it comes.
 */
const MAIN_WARM_ROUNDS = 8;

function warmHere(source: string, name: string | undefined, left: number): void {
  checkHere(source, name).then(
    () => {
      if (left > 1) whenIdle(() => warmHere(source, name, left - 1), 1000);
    },
    () => {},
  );
}

async function checkHere(source: string, name: string | undefined): Promise<Problem[]> {
  const from = catalogueAnswer();
  if (!validate) {
    validator ??= import('../template/validate.js').catch((e: unknown) => {
      validator = null; // try again on the next check
      throw e;
    });
    validate = (await validator).validateTemplate;
  }
  // once both are here, the check runs in the task that asks for it, with no await before it
  if (here?.from !== from) here = { from, catalogue: toCatalogue(await from) };
  return validate(source, { ...(name !== undefined ? { name } : {}), catalogue: here.catalogue }).problems;
}

async function pump(): Promise<void> {
  if (running || (!queued && !warming)) return;
  const warm = !queued;
  let job: Job;
  if (queued) {
    job = queued;
    queued = null;
  } else {
    const w = warming!;
    job = { source: w.source, name: undefined, waiting: [], failed: [] };
    if (--w.left === 0) warming = null;
  }
  const id = nextId++;
  running = { id, job, warm };
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
    const message: ToWorker = { catalogue: await catalogueAnswer() };
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
