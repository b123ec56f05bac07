import type { LibraryLogger } from '../context.js';
import type { Git } from './git.js';
import type { Journal, JournalEntry } from './journal.js';
import { blobId, type ObjectFormat, type Snapshot } from './snapshot.js';
import type { RecentVersion } from './types.js';

/**
 * One commit per job, in the order the jobs were queued, one at a time
 * (docs/history.md). A job carries the bytes of its write as they were
 * read inside the write's queue slot, so a commit holds exactly what that
 * write wrote — never a later write's bytes, never a torn file — and the
 * commit is built with plumbing from those bytes, not from the work tree:
 *
 *   hash-object -w (each changed file) → update-index --index-info (only the
 *   job's paths) → write-tree → commit-tree → update-ref HEAD <new> <old>
 *
 * update-ref moves HEAD by git's lockfile and rename, and only from the
 * HEAD this queue last saw, so a crash leaves HEAD at the old commit or the
 * new one; objects written before it are at worst unreachable, which fsck
 * reports only as dangling. A job that changes nothing (bytes equal to what
 * HEAD holds) makes no commit.
 *
 * A failure never reaches the write that queued the job (it has answered
 * already): it is logged, and the job is retried after a pause that doubles
 * up to RETRY_MAX_MS, with the jobs behind it waiting so the order holds.
 */

export interface Job {
  snapshot: Snapshot;
  /** resolved once the write has answered (its state is in the subject); the journal holds a fallback */
  message: Promise<string> | string;
  who: string | null;
  /** the write's time (ms): the commit's author date */
  at: number;
  /** the journal file that keeps this job across a crash, or null */
  journal: string | null;
}

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 30_000;
/** `git gc --auto` after this many commits of one run, in the queue's turn (git.ts says why not git's own). */
const GC_EVERY = 1000;

export interface CommitQueueOptions {
  git: Git;
  format: ObjectFormat;
  author: { name: string; email: string };
  journal: Journal;
  logger: LibraryLogger;
  /** test hook: throwing fails the commit at this step */
  faults?: (step: string) => void | Promise<void>;
}

export class CommitQueue {
  private readonly jobs: Job[] = [];
  /** the tracked paths HEAD holds → blob id */
  private committed = new Map<string, string>();
  private head: string | null = null;
  /** HEAD or the tracked paths may have moved under us (a failure, an exclusive task): read them again first */
  private stale = true;
  private running: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private delay = RETRY_FIRST_MS;
  private landed = 0;
  private closed = false;
  private readonly listeners = new Set<(v: RecentVersion) => void>();
  /** one git writer at a time: a job, or an exclusive task */
  private mutex: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: CommitQueueOptions) {}

  /** HEAD's tracked paths, as the start's comparison with the disk needs them. */
  async tree(): Promise<Map<string, string>> {
    await this.refresh();
    return new Map(this.committed);
  }

  enqueue(job: Job): void {
    this.jobs.push(job);
    this.kick();
  }

  onCommit(listener: (v: RecentVersion) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves when the queue is empty, or its first job has failed and waits for its retry. */
  async settle(): Promise<void> {
    while (this.running) await this.running;
  }

  get pending(): number {
    return this.jobs.length;
  }

  exclusive<T>(task: () => Promise<T>): Promise<T> {
    return this.locked(async () => {
      try {
        return await task();
      } finally {
        this.stale = true;
      }
    });
  }

  /** Stops retrying; what is still queued stays in the journal for the next start. */
  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
  }

  private locked<T>(task: () => Promise<T>): Promise<T> {
    const run = this.mutex.then(task, task);
    this.mutex = run.catch(() => {});
    return run;
  }

  private kick(): void {
    if (this.running || this.retry || this.closed) return;
    this.running = this.pump().finally(() => {
      this.running = null;
    });
  }

  private async pump(): Promise<void> {
    while (this.jobs.length && !this.closed) {
      const job = this.jobs[0]!;
      try {
        await this.locked(() => this.land(job));
      } catch (e) {
        this.stale = true;
        this.o.logger.error({ err: (e as Error).message, retry_ms: this.delay, queued: this.jobs.length }, 'history: a commit failed; the write stands and the commit is retried');
        this.retry = setTimeout(() => {
          this.retry = null;
          this.kick();
        }, this.delay);
        this.retry.unref();
        this.delay = Math.min(this.delay * 2, RETRY_MAX_MS);
        return;
      }
      this.jobs.shift();
      this.delay = RETRY_FIRST_MS;
      if (job.journal) this.o.journal.done(job.journal);
    }
  }

  private async refresh(): Promise<void> {
    if (!this.stale) return;
    const { git } = this.o;
    const r = await git.run(['rev-parse', '-q', '--verify', 'HEAD^{commit}']);
    this.head = r.code === 0 ? r.stdout.toString('utf8').trim() : null;
    this.committed = new Map();
    if (this.head) {
      const out = await git.ok(['ls-tree', '-r', '-z', '--full-tree', this.head, '--', '.gitignore', 'templates', 'roles', 'proposals']);
      for (const line of out.split('\0')) {
        const tab = line.indexOf('\t');
        if (tab < 0) continue;
        const [, type, id] = line.slice(0, tab).split(' ');
        if (type === 'blob') this.committed.set(line.slice(tab + 1), id!);
      }
    }
    this.stale = false;
  }

  private async fault(step: string): Promise<void> {
    await this.o.faults?.(step);
  }

  private async land(job: Job): Promise<void> {
    const { git, format } = this.o;
    await this.refresh();
    const message = await job.message;
    const changed = [...job.snapshot].filter(([p, b]) => (b === null ? this.committed.has(p) : this.committed.get(p) !== blobId(b, format)));
    if (!changed.length) return;
    const lines: string[] = [];
    const ids = new Map<string, string | null>();
    for (const [p, b] of changed) {
      if (b === null) {
        lines.push(`0 ${'0'.repeat(format === 'sha1' ? 40 : 64)}\t${p}`);
        ids.set(p, null);
        continue;
      }
      await this.fault('hash-object');
      const id = (await git.ok(['hash-object', '-w', '--no-filters', '--stdin'], { input: b })).trim();
      lines.push(`100644 ${id}\t${p}`);
      ids.set(p, id);
    }
    await this.fault('update-index');
    await git.ok(['update-index', '--add', '--remove', '--index-info'], { input: lines.join('\n') + '\n' });
    const tree = (await git.ok(['write-tree'])).trim();
    const at = `@${Math.floor(job.at / 1000)} +0000`;
    const env = {
      GIT_AUTHOR_NAME: this.o.author.name,
      GIT_AUTHOR_EMAIL: this.o.author.email,
      GIT_AUTHOR_DATE: at,
      GIT_COMMITTER_NAME: this.o.author.name,
      GIT_COMMITTER_EMAIL: this.o.author.email,
    };
    const body = job.who ? `${message}\n\nWho: ${job.who.replace(/[\r\n]/g, ' ')}\n` : `${message}\n`;
    await this.fault('commit-tree');
    const commit = (await git.ok(['commit-tree', tree, ...(this.head ? ['-p', this.head] : [])], { input: body, env })).trim();
    await this.fault('update-ref');
    await git.ok(['update-ref', '-m', message, 'HEAD', commit, this.head ?? '0'.repeat(commit.length)]);
    this.head = commit;
    for (const [p, id] of ids) {
      if (id === null) this.committed.delete(p);
      else this.committed.set(p, id);
    }
    const v: RecentVersion = { commit, at: new Date(Math.floor(job.at / 1000) * 1000).toISOString(), author: `${this.o.author.name} <${this.o.author.email}>`, who: job.who, message, paths: [...ids.keys()].sort() };
    for (const l of this.listeners) {
      try {
        l(v);
      } catch (e) {
        this.o.logger.error({ err: (e as Error).message }, 'history: an onCommit listener failed');
      }
    }
    if (++this.landed % GC_EVERY === 0) {
      // in the queue's turn, attached: it ends with the service and never runs beside a commit
      await git.run(['-c', 'gc.auto=6700', '-c', 'gc.autoDetach=false', 'gc', '--auto', '--quiet']);
    }
  }
}

export type { JournalEntry };
