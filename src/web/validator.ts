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

/** Warm-up rounds of a long text in the Worker; see warmUp. */
const WORKER_WARM_ROUNDS = 10;
/** Warm-up rounds of a short text on the main thread; see warmUp. */
const MAIN_WARM_ROUNDS = 8;

/**
 * The page's validator: one per page, made by the entry module (main.ts) and
 * passed to the views that check text (the template page's editor, the
 * rebase preview), so that its Worker, its catalogue and its queue are
 * shared by them and by nothing else.
 */
export class PageValidator {
  private worker: Worker | null = null;
  /** GET /api/desk/catalogue, once for the main thread's checks, the Worker and completion (catalogueAnswer) */
  private answer: Promise<CatalogueAnswer> | null = null;
  /** the Worker has been sent the current answer */
  private catalogue: Promise<void> | null = null;
  /** the answer as the main thread's checks take it, with the answer it was made from */
  private here: { from: Promise<CatalogueAnswer>; catalogue: Catalogue } | null = null;
  /**
   * The validator's code for the main thread, loaded with the first check: the
   * list view's page makes this object (invalidateCatalogue) and must not load it.
   */
  private validator: Promise<typeof import('../template/validate.js')> | null = null;
  private validate: typeof import('../template/validate.js').validateTemplate | null = null;
  private nextId = 1;
  /** the check the worker is running, by its id; `warm` when nobody waits for it */
  private running: { id: number; job: Job; warm: boolean } | null = null;
  /** the newest check asked for while one ran; an older one still waiting is folded into it */
  private queued: Job | null = null;
  /** warm-up checks (warmUp), run only while no check is asked for */
  private warming: { source: string; left: number } | null = null;

  /**
   * The problems the server would answer for this source saved as `name`
   * (unchecked when undefined): code, path, line, column, severity, message.
   * Checks run one at a time, newest first: a call overtaken by a later one
   * before its turn resolves with the later source's problems (an editor lints
   * only its current text anyway).
   */
  checkSource(source: string, name: string | undefined): Promise<Problem[]> {
    // a check still in the Worker goes first, so results come in order
    if (source.length <= MAIN_THREAD_MAX && (!this.running || this.running.warm) && !this.queued) return this.checkHere(source, name);
    return this.inWorker(source, name);
  }

  /** Roles or templates changed: the next check fetches the catalogue again. */
  invalidateCatalogue(): void {
    this.answer = null;
    this.catalogue = null;
    this.here = null;
  }

  /** The names the checks take (roles, templates, kits): fetched once until invalidated, and again after a failure. */
  catalogueAnswer(): Promise<CatalogueAnswer> {
    if (this.answer) return this.answer;
    const mine = call<CatalogueAnswer>('GET', '/catalogue').then((r) => r.body);
    this.answer = mine;
    mine.catch(() => {
      if (this.answer === mine) this.answer = null; // try again on the next check
    });
    return mine;
  }

  /**
   * Readies the place this text's keystrokes will be checked, when the editor
   * opens: the catalogue fetched, the validator's code compiled. Results are
   * dropped.
   *
   * A long text gets Worker checks of a small skeleton before the first key:
   * a cold check is several times slower than a warm one. Small, so that a
   * key's check waits a few milliseconds behind one, not the hundreds of a
   * cold check of a long text; many, so the validator's code is compiled
   * before the long text needs it (bench `page`, the cap: p95 128–140 → 103 ms).
   *
   * A short one gets main-thread checks of the opened text, one per idle
   * moment: the first keys typed after the page opened met a validator V8
   * had run once (bench `page`, keystroke → problems of the first keys, p95:
   * 35–43 → 26–34 ms). A key waits at most for the one check running when it
   * comes.
   */
  warmUp(source: string, name: string | undefined): void {
    if (source.length <= MAIN_THREAD_MAX) {
      this.warmHere(source, name, MAIN_WARM_ROUNDS);
      return;
    }
    this.warming = { source: skeleton(name ?? 'warm-up', 'warm-up'), left: WORKER_WARM_ROUNDS };
    void this.pump();
  }

  private inWorker(source: string, name: string | undefined): Promise<Problem[]> {
    return new Promise((resolve, reject) => {
      const job: Job = this.queued ?? { source, name, waiting: [], failed: [] };
      job.source = source;
      job.name = name;
      job.waiting.push(resolve);
      job.failed.push(reject);
      this.queued = job;
      void this.pump();
    });
  }

  private warmHere(source: string, name: string | undefined, left: number): void {
    this.checkHere(source, name).then(
      () => {
        if (left > 1) whenIdle(() => this.warmHere(source, name, left - 1), 1000);
      },
      () => {},
    );
  }

  private async checkHere(source: string, name: string | undefined): Promise<Problem[]> {
    const from = this.catalogueAnswer();
    if (!this.validate) {
      this.validator ??= import('../template/validate.js').catch((e: unknown) => {
        this.validator = null; // try again on the next check
        throw e;
      });
      this.validate = (await this.validator).validateTemplate;
    }
    // once both are here, the check runs in the task that asks for it, with no await before it
    if (this.here?.from !== from) this.here = { from, catalogue: toCatalogue(await from) };
    return this.validate(source, { ...(name !== undefined ? { name } : {}), catalogue: this.here.catalogue }).problems;
  }

  private async pump(): Promise<void> {
    if (this.running || (!this.queued && !this.warming)) return;
    const warm = !this.queued;
    let job: Job;
    if (this.queued) {
      job = this.queued;
      this.queued = null;
    } else {
      const w = this.warming!;
      job = { source: w.source, name: undefined, waiting: [], failed: [] };
      if (--w.left === 0) this.warming = null;
    }
    const id = this.nextId++;
    this.running = { id, job, warm };
    try {
      const w = this.start();
      if (!this.catalogue) this.catalogue = this.loadCatalogue(w);
      await this.catalogue;
      if (this.running?.id !== id) return;
      const message: ToWorker = { id, source: job.source, name: job.name };
      w.postMessage(message);
    } catch (e) {
      this.finish(id, null, e);
    }
  }

  private finish(id: number, problems: Problem[] | null, error?: unknown): void {
    if (this.running?.id !== id) return;
    const { job } = this.running;
    this.running = null;
    if (problems) for (const r of job.waiting) r(problems);
    else for (const r of job.failed) r(error);
    void this.pump();
  }

  private async loadCatalogue(w: Worker): Promise<void> {
    try {
      const message: ToWorker = { catalogue: await this.catalogueAnswer() };
      w.postMessage(message);
    } catch (e) {
      this.catalogue = null; // try again on the next check
      throw e;
    }
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const url = document.querySelector<HTMLMetaElement>(`meta[name="${WORKER_META}"]`)?.content;
    if (!url) throw new Error('the page was built without its validator worker (npm run build:web)');
    const w = new Worker(url, { type: 'module', name: 'validator' });
    w.onmessage = (e: MessageEvent<FromWorker>) => this.finish(e.data.id, e.data.problems);
    w.onerror = (e) => {
      // a worker that failed to load or threw: drop it, so the next check starts a fresh one
      e.preventDefault();
      this.worker = null;
      this.catalogue = null;
      w.terminate();
      if (this.running) this.finish(this.running.id, null, new Error(`the validator worker failed: ${e.message || 'could not load'}`));
    };
    this.worker = w;
    return w;
  }
}
