import { mkdir, readFile } from 'node:fs/promises';
import type { LibraryLogger } from '../context.js';
import type { Git } from './git.js';
import type { Journal, JournalEntry } from './journal.js';
import { hideForeign, indexToHead, ownedPath } from './repo.js';
import { blobId, type ObjectFormat, type Snapshot } from './snapshot.js';
import type { RecentVersion } from './types.js';
import { TRACKED_TOP } from '../layout.js';
import { KeyedQueue } from '../queue.js';
import type { TreeRef } from './recorder.js';

/**
 * One commit per job, in the order the jobs were queued (docs/history.md).
 * A job carries the bytes of its write as they were read inside the write's
 * queue slot, so a commit holds exactly what that write wrote — never a
 * later write's bytes, never a torn file — and commits are built from those
 * bytes, not from the work tree.
 *
 * The jobs queued when the queue's turn comes are landed together, with
 * three git processes whatever their number (spawning git is what a commit
 * costs here, on a machine whose saves wait on fsync, not on the CPU):
 *
 * 1. `git fast-import` writes every job's blobs, trees and commit, chained
 *    from HEAD, onto the private ref `refs/desk/queue`, as one pack
 *    (`fastimport.unpackLimit=0`: git's default writes a run of under 100
 *    objects loose, one file and one fsync each, which took 2.5 times the
 *    CPU and 3 times the wall time of the pack for 1 to 25 commits);
 * 2. `git update-ref HEAD <last> <HEAD as read>` moves HEAD by git's lockfile
 *    and rename, and only from the HEAD this queue saw, so a crash leaves
 *    HEAD at the old commit or the new one — objects written before are at
 *    worst unreachable, which fsck reports only as dangling;
 * 3. `git update-index --index-info` brings the index to HEAD for those
 *    paths, so `git status` in the root stays clean.
 *
 * A job that changes nothing (bytes equal to what HEAD holds) makes no
 * commit. A failure never reaches the write that queued the job (it has
 * answered already): it is logged, and the batch is retried after a pause
 * that doubles up to RETRY_MAX_MS, with later jobs waiting so order holds.
 */

export interface Job {
  snapshot: Snapshot;
  message: string;
  who: string | null;
  /** the write's time (ms): the commit's author date */
  at: number;
  /** the journal file that keeps this job across a crash, or null */
  journal: string | null;
  /**
   * A sync round's commit (sync/round.ts): `remote` becomes its
   * second parent; with `fastForward`, HEAD moves to `remote` instead, as
   * long as HEAD is still `head` when the job's turn comes. A merge is a
   * commit even when it changes no file: it records that the remote's
   * history is merged.
   */
  merge?: { remote: string; head: string | null; fastForward: boolean; refs?: ReadonlyMap<string, TreeRef> };
}

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 30_000;
/**
 * `git gc --auto` after this many batches of one run, in the queue's turn (git.ts says why not git's own): each
 * batch is a pack, and gc --auto, told the same number as its `gc.autoPackLimit`, joins the small packs once
 * there are more, so a read never looks through more than about twice this many.
 */
export const GC_EVERY = 20;
/** how long the queue waits for more jobs before landing a batch; a commit lands this much later, a save never waits for it */
const LINGER_MS = 30;
/**
 * And at least this long after the last batch landed: under a stream of
 * saves (a burst, a script) one batch's three git processes — forked from
 * this process, on the cores the saves need — then serve every save of the
 * gap instead of one or two. A lone save still lands LINGER_MS later; a
 * save never waits for either.
 */
export const GAP_MS = 250;
/** at most this many jobs in one fast-import */
const BATCH_MAX = 200;

export interface CommitQueueOptions {
  git: Git;
  format: ObjectFormat;
  /** DESK_AUTHOR: the committer of every commit, and the author of one no person asked for */
  author: { name: string; email: string };
  /** the person a job's `who` names, its author (docs/history.md); null or absent: `author` */
  authorOf?: (who: string) => { name: string; email: string } | null;
  journal: Journal;
  logger: LibraryLogger;
  /** test hook: throwing fails the commit at this step */
  faults?: (step: string) => void | Promise<void>;
  /** HEAD as the opener just read it (null: no commit yet): the first refresh trusts it instead of asking git again */
  head?: string | null;
}

export class CommitQueue {
  private readonly jobs: Job[] = [];
  /** the tracked paths HEAD holds → blob id */
  private committed = new Map<string, string>();
  private head: string | null = null;
  /** HEAD or the tracked paths may have moved under us (a failure, a fast-forward): read them again first */
  private stale = true;
  private running: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private delay = RETRY_FIRST_MS;
  /** batches landed since the last `gc --auto` */
  private landed = 0;
  /** when the last batch ended (performance.now()) */
  private lastLanded = -Infinity;
  /** ends the current linger now */
  private hurry: (() => void) | null = null;
  /** callers waiting in settle() */
  private settling = 0;
  private closed = false;
  private readonly listeners = new Set<(v: RecentVersion) => void>();
  /** one git writer at a time: the serializer's one key */
  private readonly serial = new KeyedQueue();

  /** HEAD as read at the start, used by the first refresh only: the root's lock keeps it true until then */
  private known: string | null | undefined;

  constructor(private readonly o: CommitQueueOptions) {
    this.known = o.head;
  }

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
    this.settling++;
    try {
      this.hurry?.();
      while (this.running) await this.running;
    } finally {
      this.settling--;
    }
  }

  get pending(): number {
    return this.jobs.length;
  }

  /** Stops retrying; what is still queued stays in the journal for the next start. */
  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
  }

  private kick(): void {
    if (this.running || this.retry || this.closed) return;
    this.running = this.pump().finally(() => {
      this.running = null;
    });
  }

  private async pump(): Promise<void> {
    while (this.jobs.length && !this.closed) {
      await this.linger();
      // a fast-forward is no fast-import commit: it is taken alone, and the jobs before it land first
      const ff = this.jobs.findIndex((j) => j.merge?.fastForward);
      const batch = this.jobs.slice(0, ff === 0 ? 1 : Math.min(BATCH_MAX, ff < 0 ? BATCH_MAX : ff));
      try {
        await this.serial.run('commit', () => (batch[0]!.merge?.fastForward ? this.fastForward(batch[0]!) : this.land(batch)));
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
      this.jobs.splice(0, batch.length);
      this.lastLanded = performance.now();
      this.delay = RETRY_FIRST_MS;
      for (const job of batch) if (job.journal) this.o.journal.done(job.journal);
      this.o.journal.landed();
    }
  }

  /**
   * A moment for the writes of a burst to join one batch: fewer git
   * processes beside the saves. Cut short while someone waits in settle():
   * a reader who wants its writes in history (a version list, a sync round,
   * a stop) never waits out the gap.
   */
  private linger(): Promise<void> {
    const wait = this.settling > 0 ? 0 : Math.max(LINGER_MS, this.lastLanded + GAP_MS - performance.now());
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.hurry = null;
        resolve();
      };
      const timer = setTimeout(done, wait);
      this.hurry = done;
    });
  }

  /**
   * A round's fast-forward: HEAD moves to the remote's head, whose files the
   * round wrote. Only from the HEAD the round merged from — a commit landed
   * since (another name's save) makes it a merge commit after all — and by
   * git's lockfile, from the HEAD as read, like every move here.
   */
  private async fastForward(job: Job): Promise<void> {
    const { git, format } = this.o;
    await this.refresh();
    const m = job.merge!;
    if (this.head !== m.head) return this.land([{ ...job, merge: { ...m, fastForward: false } }]);
    await this.fault('update-ref');
    await git.ok(['update-ref', '-m', 'desk sync', 'HEAD', m.remote, this.head ?? '0'.repeat(format === 'sha1' ? 40 : 64)], { background: true });
    this.stale = true;
    // the index follows HEAD, so a plain `git status` in the root shows no phantom changes; by ids, reading no file (repo.ts)
    await indexToHead(git)
      .then(() => hideForeign(git))
      .catch((e: Error) => this.o.logger.warn({ err: e.message }, 'history: the index was not updated; git status may show the merged files as changed until the next start'));
    await this.refresh();
  }

  private async refresh(): Promise<void> {
    if (!this.stale) return;
    const { git } = this.o;
    if (this.known !== undefined) {
      this.head = this.known;
      this.known = undefined;
    } else {
      const r = await git.run(['rev-parse', '-q', '--verify', 'HEAD^{commit}']);
      this.head = r.code === 0 ? r.stdout.toString('utf8').trim() : null;
    }
    this.committed = new Map();
    if (this.head) {
      const out = await git.ok(['ls-tree', '-r', '-z', '--full-tree', this.head, '--', ...TRACKED_TOP]);
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

  private async land(batch: Job[]): Promise<void> {
    const { git, format } = this.o;
    await this.refresh();
    const zero = '0'.repeat(format === 'sha1' ? 40 : 64);
    const committer = ident(this.o.author);
    const authorOf = (job: Job) => {
      const person = job.who && !job.merge ? this.o.authorOf?.(job.who) : null;
      return person ? ident(person) : committer;
    };
    const state = new Map(this.committed);
    const data = (b: Buffer | string) => [`data ${Buffer.byteLength(b)}\n`, b, '\n'];
    // reset: the batch's chain starts where `from` says (or as a root), never from the private ref's last value
    const parts: (string | Buffer)[] = ['reset refs/desk/queue\n\n'];
    const made: { mark: number; job: Job; message: string; paths: string[] }[] = [];
    /** path → its index entry (`mode id`), or null when removed */
    const touched = new Map<string, string | null>();
    for (const job of batch) {
      const message = job.message;
      const changed = [...job.snapshot].filter(([p, b]) => (b === null ? state.has(p) : state.get(p) !== blobId(b, format)));
      if (!changed.length && !job.merge) continue;
      const mark = made.length + 1;
      const at = Math.floor(job.at / 1000);
      // a message that ends in a trailer block (a proposal's save: `Proposed-by:`) takes `Who:` into that block
      const body = job.who ? `${message}${message.includes('\n\n') ? '\n' : '\n\n'}Who: ${job.who.replace(/[\r\n]/g, ' ')}\n` : `${message}\n`;
      parts.push(`commit refs/desk/queue\nmark :${mark}\nauthor ${authorOf(job)} ${at} +0000\ncommitter ${committer} ${Math.floor(Date.now() / 1000)} +0000\n`, ...data(body));
      // the first commit of the batch grows from HEAD (none in a new repository), each next from the one before
      if (mark > 1) parts.push(`from :${mark - 1}\n`);
      else if (this.head) parts.push(`from ${this.head}\n`);
      if (job.merge) parts.push(`merge ${job.merge.remote}\n`);
      for (const [p, b] of changed) {
        if (b === null) {
          parts.push(`D ${p}\n`);
          state.delete(p);
          touched.set(p, null);
        } else {
          parts.push(`M 100644 inline ${p}\n`, ...data(b));
          const id = blobId(b, format);
          state.set(p, id);
          touched.set(p, `100644 ${id}`);
        }
      }
      // entries a round takes by id: a diverged name's remote files, a teammate's paths the service does not own
      for (const [p, ref] of job.merge?.refs ?? []) {
        if (job.snapshot.has(p)) continue;
        if (ref === null) {
          parts.push(`D ${p}\n`);
          state.delete(p);
        } else {
          parts.push(`M ${ref.mode} ${ref.id} ${p}\n`);
          state.set(p, ref.id);
        }
        touched.set(p, ref && `${ref.mode} ${ref.id}`);
      }
      parts.push('\n');
      made.push({ mark, job, message, paths: changed.map(([p]) => p).sort() });
    }
    if (!made.length) return;
    await mkdir(`${git.gitDir}/desk-history`, { recursive: true });
    const marks = `${git.gitDir}/desk-history/marks`;
    await this.fault('fast-import');
    await git.ok(['-c', 'fastimport.unpackLimit=0', 'fast-import', '--quiet', '--force', '--done', `--export-marks=${marks}`], { background: true, input: Buffer.concat([...parts, 'done\n'].map((x) => (typeof x === 'string' ? Buffer.from(x) : x))) });
    const ids = new Map<number, string>();
    for (const line of (await readFile(marks, 'utf8')).split('\n')) {
      const m = /^:(\d+) ([0-9a-f]+)$/.exec(line);
      if (m) ids.set(Number(m[1]), m[2]!);
    }
    const last = ids.get(made.length);
    if (!last) throw new Error('git fast-import named no commit for the batch');
    // which journal files this move lands, for a start after a crash between the move and their removal
    const names = batch.map((j) => j.journal).filter((x): x is string => x !== null);
    if (names.length) this.o.journal.landing(last, names);
    await this.fault('update-ref');
    await git.ok(['update-ref', '-m', made.length === 1 ? made[0]!.message : `${made.length} commits`, 'HEAD', last, this.head ?? zero], { background: true });
    this.head = last;
    this.committed = state;
    const info = [...touched].map(([p, entry]) => (entry === null ? `0 ${zero}\t${p}` : `${entry}\t${p}`));
    // the index follows HEAD for these paths; should this fail, the commits stand and the next start resets it
    const ix = await git.run(['update-index', '-z', '--add', '--remove', '--index-info'], { background: true, input: `${info.join('\0')}\0` });
    if (ix.code !== 0) this.o.logger.warn({ err: ix.stderr.trim() }, 'history: the index was not updated; git status may show the last commits as staged until the next start');
    else await hideForeign(git, [...touched].flatMap(([p, e]) => (e !== null && !ownedPath(p) ? [p] : []))).catch(() => {});
    for (const { mark, job, message, paths } of made) {
      const v: RecentVersion = { commit: ids.get(mark)!, at: new Date(Math.floor(job.at / 1000) * 1000).toISOString(), author: authorOf(job), who: job.who, message, paths };
      for (const l of this.listeners) {
        try {
          l(v);
        } catch (e) {
          this.o.logger.error({ err: (e as Error).message }, 'history: an onCommit listener failed');
        }
      }
    }
    this.landed++;
    if (this.landed >= GC_EVERY) {
      this.landed = 0;
      // in the queue's turn, attached: it ends with the service and never runs beside a commit
      await git.run(['-c', 'gc.auto=6700', '-c', `gc.autoPackLimit=${GC_EVERY}`, '-c', 'gc.autoDetach=false', 'gc', '--auto', '--quiet']);
    }
  }
}

export type { JournalEntry };

/** `Name <email>` as fast-import takes it: no angle brackets or line breaks in either part (a person's name comes from a users file or a proxy). */
function ident(p: { name: string; email: string }): string {
  const clean = (x: string) => x.replace(/[<>\r\n\0]/g, '').trim();
  return `${clean(p.name) || 'desk'} <${clean(p.email)}>`;
}
