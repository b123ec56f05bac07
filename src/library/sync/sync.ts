import { isAbsolute } from 'node:path';
import type { LibraryLogger } from '../context.js';
import type { RoundProgress, SyncStatus } from '../../schema/sync.js';
import type { LibraryReads } from '../entries.js';
import type { EventBus } from '../events/bus.js';
import type { SyncFiles } from './contract.js';
import type { History } from '../history/types.js';
import { blobAt, type Git, GitError, gitAt } from '../history/git.js';
import { GitSpawner } from '../history/spawner.js';
import { clearRound, loadDiverged, loadRound, remoteLabel, saveDiverged, saveRound } from './store.js';
import { hideAbsent, ownedPath } from '../history/repo.js';
import { keepOwn } from '../history/own.js';
import { blobCapped, type Diverged, type DivergedAt, type IgnoredPath, isAncestor, mergeRemote, revOrNull } from './round.js';
import { readCap } from '../disk/fs-safe.js';
import type { DivergedDetail } from '../../schema/sync.js';
import { rolePaths, templatePaths } from '../layout.js';
import { KeyedQueue } from '../queue.js';
import type { DivergedNames } from '../state.js';

/**
 * Sync with the team's remote (docs/history.md, Sync): after each commit
 * this desk pushes; every interval, and when asked, it fetches the remote's
 * branch and merges it (sync/round.ts). One thing at a time: pushes and
 * rounds run in one chain. A remote that cannot be reached fails the step,
 * which is recorded as `last_error` and tried again at the next round; a save
 * never waits for any of it.
 */

export interface SyncOptions {
  /** a URL or a path to a bare repository (DESK_LIBRARY_REMOTE) */
  remote: string;
  /** ms between rounds (DESK_SYNC_INTERVAL × 1000) */
  intervalMs: number;
  logger?: LibraryLogger;
  /** clock, for last_sync. Default Date.now */
  now?: () => number;
  /** how long POST /sync waits for its round before it answers 202 with the round (docs/api.md, Sync). Default 30 s */
  waitMs?: number;
  /** what starts git: the library's (history.spawner.ts); default one of the sync's own, closed when it stops */
  spawner?: GitSpawner;
}

export type { SyncStatus };

/** A role's files as GET /sync/roles/:name shows one side; null: no copy there. */
export type RoleFiles = { role_md: string; kit: string | null } | null;

/**
 * Every git call of a sync is cut off after this long: a fetch of a small
 * library over a slow link takes seconds, and an unreachable remote must cost
 * one failed round, never a stuck one.
 */
const SYNC_GIT_TIMEOUT_MS = 30_000;

/** The remote's branch as last fetched. */
const REMOTE_REF = 'refs/desk-sync/remote';

/** A push refused because the remote's branch is not where the last fetch left it. */
const moved = (e: unknown): boolean => e instanceof GitError && /rejected|fetch first|non-fast-forward|cannot lock ref|failed to update ref/i.test(e.stderr);

const silent: LibraryLogger = { info() {}, warn() {}, error() {} };

/** What a sync uses of the library (types.ts, Library): its root, two reads, its history, the files side of a round, the bus. */
export type SyncedLibrary = Pick<LibraryReads, 'getTemplate' | 'getRole'> & {
  readonly root: string | null;
  readonly history: History;
  readonly syncFiles?: SyncFiles | undefined;
  readonly events: EventBus;
};

export class LibrarySync {
  readonly label: string;
  private readonly git: Git;
  private readonly logger: LibraryLogger;
  private readonly now: () => number;
  /** pushes and rounds, one at a time: the serializer's one key */
  private readonly chain = new KeyedQueue();
  private timer: NodeJS.Timeout | null = null;
  private pushWanted = false;
  /** a round queued behind the running one, not started yet */
  private waiting: Promise<SyncStatus> | null = null;
  private stopped = false;
  private lastSync: number | null = null;
  /** the round under way, for GET /sync and POST /sync's 202; null between rounds */
  private running: RoundProgress | null = null;
  private rounds = 0;
  private lastError: string | null = null;
  private diverged: Diverged = { templates: {}, roles: {} };
  private gitDir: string | null = null;
  /** the remote's HEAD was looked at in this run (remoteHead) */
  private headChecked = false;
  private unsubscribe: (() => void)[] = [];
  /** the remote's paths the desk does not load, as of the last merge; and those already said in the log */
  private ignored: IgnoredPath[] = [];
  private readonly saidIgnored = new Set<string>();
  /** cuts a fetch or push in flight when the service stops: the network must not hold a stop past its grace */
  private readonly stopping = new AbortController();
  /** the spawner made here when none was given, closed at stop */
  private readonly ownSpawner: GitSpawner | null;

  constructor(
    private readonly library: SyncedLibrary,
    private readonly options: SyncOptions,
  ) {
    if (!library.root) throw new Error('sync needs a library root');
    this.ownSpawner = options.spawner ? null : new GitSpawner();
    this.git = gitAt(library.root, { timeoutMs: SYNC_GIT_TIMEOUT_MS, spawner: options.spawner ?? this.ownSpawner! });
    this.label = remoteLabel(options.remote);
    this.logger = options.logger ?? silent;
    this.now = options.now ?? Date.now;
  }

  /** Reads what an earlier run left diverged, then syncs at once and every interval. */
  async start(): Promise<void> {
    const h = this.library.history;
    if (!h.enabled || !this.library.syncFiles) {
      this.lastError = `history is off (${h.disabled ?? 'no library root'}), so there is nothing to sync`;
      return;
    }
    try {
      this.gitDir = await this.git.line(['rev-parse', '--absolute-git-dir']);
    } catch (e) {
      // the service still starts and saves; the status says why nothing syncs
      this.fail('start', e);
      return;
    }
    await this.load();
    this.unsubscribe.push(h.onCommit(() => this.schedulePush()));
    this.unsubscribe.push(
      this.library.syncFiles.onResolved((kind, name) => {
        delete this.diverged[kind][name];
        void this.save();
      }),
    );
    this.timer = setInterval(() => void this.sync().catch(() => {}), this.options.intervalMs);
    this.timer.unref();
    void this.sync().catch(() => {});
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    if (this.timer) clearInterval(this.timer);
    for (const u of this.unsubscribe) u();
    await this.chain.idle();
    this.ownSpawner?.close();
  }

  private run<T>(task: () => Promise<T>): Promise<T> {
    return this.chain.run('round', task);
  }

  /** After a commit: one push soon, however many commits land meanwhile. */
  private schedulePush(): void {
    if (this.pushWanted || this.stopped) return;
    this.pushWanted = true;
    void this.run(async () => {
      this.pushWanted = false;
      if (this.stopped) return;
      try {
        await this.push();
      } catch (e) {
        // the remote moved on since the last fetch: a whole round merges it first
        if (!moved(e)) return this.fail('push', e);
        await this.round().catch((err) => this.fail('sync', err));
      }
    });
  }

  /**
   * Fetch, merge, push; the status after. Failures are recorded, never
   * thrown. A call while another round waits to start joins that one: it
   * will see everything this caller could want it to.
   */
  sync(): Promise<SyncStatus> {
    if (this.waiting) return this.waiting;
    const round = this.run(async () => {
      this.waiting = null;
      if (!this.stopped && this.gitDir) {
        this.running = { id: `${this.now().toString(36)}-${++this.rounds}`, state: 'running', done: 0, total: 0, started_at: new Date(this.now()).toISOString() };
        try {
          await this.round();
          this.lastSync = this.now();
          this.recovered();
        } catch (e) {
          this.fail('sync', e);
        } finally {
          this.running = null;
        }
      }
      return this.status();
    });
    this.waiting = round;
    return round;
  }

  private fail(step: string, e: unknown): void {
    const raw = e instanceof GitError ? e.message : `${step}: ${(e as Error).message}`;
    // git may name the URL it could not reach: never with its credentials
    const why = raw.split(this.options.remote).join(this.label).replace(/\/\/[^/@\s]+@/g, '//');
    // a remote that stays down is said once, not at every round
    if (why !== this.lastError) this.logger.warn({ step, remote: this.label, err: why }, 'sync with the remote failed; the next round tries again');
    this.lastError = why;
  }

  private recovered(): void {
    if (this.lastError !== null) this.logger.info({ remote: this.label }, 'sync with the remote works again');
    this.lastError = null;
  }

  private async branch(): Promise<string> {
    return (await this.git.line(['symbolic-ref', '--short', '-q', 'HEAD']).catch(() => '')) || 'main';
  }

  private async fetch(branch: string): Promise<string | null> {
    try {
      // the remote comes from outside: after --end-of-options, a value starting with `-` is a repository, never an option
      // `--upload-pack` named: a `remote.<this value>.uploadpack` of the repository's config is a program it would run
      await this.git.ok(['fetch', '--no-tags', '--quiet', '--no-write-fetch-head', '--upload-pack=git-upload-pack', '--end-of-options', this.options.remote, `+refs/heads/${branch}:${REMOTE_REF}`], { signal: this.stopping.signal });
    } catch (e) {
      // an empty remote (nobody pushed yet) has no branch to fetch: nothing to merge
      if (e instanceof GitError && /couldn't find remote ref/i.test(e.stderr)) return null;
      throw e;
    }
    return revOrNull(this.git, REMOTE_REF);
  }

  /** Fetch, merge, push; again (up to three times) when another desk pushed in between. */
  private async round(): Promise<void> {
    // every landed save is in HEAD before the merge reads it
    await this.library.history.settle();
    // a round a crash or a failure cut short goes first, on the same remote head: its files are all taken, or none
    const left = await loadRound(this.gitDir!);
    if (left && (await revOrNull(this.git, left.remote))) await this.mergeFrom(left.remote, true);
    else if (left) {
      // its remote head is gone from the repository (pruned long after a failure): nothing to roll forward from
      this.logger.warn({ remote: this.label, commit: left.remote }, 'a sync round left unfinished names a commit this repository no longer has; it is dropped, and this round merges the remote as it is now');
      await clearRound(this.gitDir!);
    }
    const branch = await this.branch();
    for (let attempt = 1; ; attempt++) {
      const remote = await this.fetch(branch);
      if (remote) await this.mergeFrom(remote);
      try {
        await this.push(branch);
        break;
      } catch (e) {
        if (attempt >= 3 || !moved(e)) throw e;
      }
    }
    await this.remoteHead(branch);
  }

  private async mergeFrom(remote: string, rollForward = false): Promise<void> {
    const progress = (done: number, total: number) => {
      if (this.running) Object.assign(this.running, { done, total });
    };
    const gitDir = this.gitDir!;
    const before = { templates: { ...this.diverged.templates }, roles: { ...this.diverged.roles } };
    const r = await mergeRemote(
      { git: this.git, files: this.library.syncFiles!, remoteLabel: this.label, progress, stopping: () => this.stopped, rollForward, begin: (head) => saveRound(gitDir, { remote, head }) },
      remote,
      this.diverged,
    );
    // the round's commit is queued behind the writes before it; once it lands, HEAD holds the remote's head
    await this.library.history.settle();
    this.library.syncFiles!.setDiverged(this.names());
    if (r.touched.templates.length || r.touched.roles.length) await this.save();
    // the journal goes once HEAD holds the merge; a commit still waiting for its retry keeps it, and the next round rolls it forward
    const head = await revOrNull(this.git, 'HEAD');
    if (head && (await isAncestor(this.git, remote, head))) await clearRound(gitDir);
    await this.hideUnread();
    await this.keepNewlyDiverged(before);
    this.noteIgnored(r);
    const detail = this.noteDiverged(before);
    // after the merge commit: what a reader announces of them is already in HEAD
    await this.library.syncFiles!.plainWritten(r.written.plain);
    const names = [...new Set([...r.written.templates, ...r.touched.templates].map((n) => `template:${n}`)), ...new Set([...r.written.roles, ...r.touched.roles].map((n) => `role:${n}`))];
    if (names.length) {
      // one event for the round, however many names it brought: a page reads its list again, once (docs/api.md, Events)
      const diverged = Object.keys(this.diverged.templates).length + Object.keys(this.diverged.roles).length;
      this.library.events.publish('library.synced', { round: this.running?.id ?? '', changed: names.length, diverged, names: names.slice(0, 100), diverged_detail: detail.slice(0, 100) });
      this.logger.info({ remote: this.label, written: { templates: r.written.templates.length, roles: r.written.roles.length, plain: r.written.plain.length }, diverged }, 'synced with the remote');
    }
  }

  /**
   * The remote's paths the desk does not load: listed in the status, and said
   * in the log once per path and run. A file a round left out (a kept base
   * whose bytes do not hash to its name, a record over its cap) stays listed
   * while the remote still holds it and no later round took it.
   */
  private noteIgnored(r: { ignored: IgnoredPath[]; remotePaths: ReadonlySet<string>; written: { plain: string[] } }): void {
    const now = new Set(r.ignored.map((i) => i.path));
    const written = new Set(r.written.plain);
    const carried = this.ignored.filter((i) => !now.has(i.path) && !written.has(i.path) && r.remotePaths.has(i.path) && !ownedNot(i.path));
    const ignored = [...r.ignored, ...carried];
    if (!ignored.length && !this.ignored.length) return;
    this.ignored = ignored;
    const fresh = ignored.filter((i) => !this.saidIgnored.has(i.path));
    for (const i of fresh) this.saidIgnored.add(i.path);
    if (fresh.length) {
      this.logger.info({ remote: this.label, ignored: fresh.slice(0, 50), count: fresh.length }, "the remote holds files this desk does not load; they stay in the shared history as they are");
    }
  }

  /** Names diverged by this round, or diverged now for another reason: one warn line each, and the event's detail. */
  private noteDiverged(before: Diverged): DivergedDetail[] {
    const out: DivergedDetail[] = [];
    for (const kind of ['templates', 'roles'] as const) {
      for (const [name, at] of Object.entries(this.diverged[kind])) {
        const was = before[kind][name];
        if (was && was.reason === at.reason && was.remote === at.remote) continue;
        const d: DivergedDetail = detailOf(name, kind, at);
        out.push(d);
        this.logger.warn({ remote: this.label, ...d, problems: at.problems.slice(0, 5) }, "this desk's copy and the remote's differ: it keeps its own and publishes the remote's until a person decides");
      }
    }
    return out;
  }

  /** The page listens for these: what loads for each name now. */
  private async announce(templates: Set<string>, roles: Set<string>): Promise<void> {
    for (const name of templates) {
      const t = await this.library.getTemplate(name).catch(() => null);
      this.library.events.publish('template.changed', { name, state: t?.state ?? null, etag: t?.etag ?? null });
    }
    for (const name of roles) {
      const r = await this.library.getRole(name).catch(() => null);
      this.library.events.publish('role.changed', { name, state: r?.state ?? null, etag: r?.etag ?? null });
    }
  }

  private async push(branch?: string): Promise<void> {
    if (!this.gitDir) return;
    const head = await revOrNull(this.git, 'HEAD');
    if (!head) return;
    const remote = await revOrNull(this.git, REMOTE_REF);
    if (remote === head) return;
    const b = branch ?? (await this.branch());
    await this.git.ok(['push', '--quiet', '--no-verify', '--end-of-options', this.options.remote, `${head}:refs/heads/${b}`], { signal: this.stopping.signal });
    await this.git.ok(['update-ref', REMOTE_REF, head]);
    this.recovered();
  }

  /**
   * Once a run, after the first round's push (docs/history.md, Sync): a
   * `git clone` of the remote checks out the branch the remote's HEAD names,
   * and a plain `git init --bare` names `master` (or the machine's
   * init.defaultBranch) whatever branch the desks push, so a teammate's clone
   * would check out nothing. A remote that is a folder here, whose HEAD names
   * a branch it does not have, gets HEAD set to this desk's branch: that
   * overrides nobody's choice. Any other HEAD than this desk's branch, and any
   * remote reached by URL (whose HEAD cannot be set from here), is said once
   * in the log with the fix. Only ever advice: nothing here fails the round.
   */
  private async remoteHead(branch: string): Promise<void> {
    if (this.headChecked) return;
    this.headChecked = true;
    const ours = `refs/heads/${branch}`;
    const remote = this.options.remote;
    try {
      // `--upload-pack` named, as for the fetch
      const out = await this.git.ok(['ls-remote', '--symref', '--upload-pack=git-upload-pack', '--end-of-options', remote, 'HEAD'], { signal: this.stopping.signal });
      // `ref: refs/heads/x<TAB>HEAD`; nothing about HEAD when it names a branch the remote does not have
      const head = /^ref: (\S+)\tHEAD$/m.exec(out)?.[1] ?? null;
      // a HEAD that is there but not a branch name (a detached one, a server that does not say): nothing to advise
      if (head === ours || (head === null && /\tHEAD$/m.test(out))) return;
      if (head === null && isAbsolute(remote)) {
        const set = await this.git.run([`--git-dir=${remote}`, 'symbolic-ref', 'HEAD', ours]);
        if (set.code === 0) {
          this.logger.info({ remote: this.label, branch }, "the remote's HEAD named a branch it does not have; it now names this desk's branch");
          return;
        }
      }
      this.logger.warn(
        { remote: this.label, branch, head },
        `the remote's HEAD is not on the library's branch ${branch}, so a git clone of it checks out ${head === null ? 'nothing' : 'another branch'}: create the remote with \`git init --bare --initial-branch=${branch}\`, or run \`git symbolic-ref HEAD refs/heads/${branch}\` in it`,
      );
    } catch {
      // the remote could not be asked (stopping, or down again): the next run asks
    }
  }

  /** How long POST /sync waits for a round (SyncOptions.waitMs), or undefined for the route's default. */
  get waitMs(): number | undefined {
    return this.options.waitMs;
  }

  /** The round under way, or null. */
  get current(): RoundProgress | null {
    return this.running && { ...this.running };
  }

  async status(): Promise<SyncStatus> {
    const base = {
      remote: this.label,
      last_sync: this.lastSync === null ? null : new Date(this.lastSync).toISOString(),
      last_error: this.lastError,
      diverged: Object.keys(this.diverged.templates).sort(),
      diverged_roles: Object.keys(this.diverged.roles).sort(),
      diverged_detail: (['templates', 'roles'] as const).flatMap((kind) =>
        Object.entries(this.diverged[kind])
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, at]) => detailOf(name, kind, at)),
      ),
      ignored: this.ignored,
    };
    if (this.running) Object.assign(base, { round: { ...this.running } });
    if (!this.gitDir) return { ...base, ahead: 0, behind: 0 };
    const head = await revOrNull(this.git, 'HEAD');
    const remote = await revOrNull(this.git, REMOTE_REF);
    const count = async (range: string) => Number(await this.git.line(['rev-list', '--count', range]).catch(() => '0')) || 0;
    const ahead = head ? (remote ? await count(`${remote}..${head}`) : await count(head)) : 0;
    const behind = remote ? (head ? await count(`${head}..${remote}`) : await count(remote)) : 0;
    return { ...base, ahead, behind };
  }

  /**
   * Where a diverged template's conflict came from, with the text that loaded
   * at each (null: nothing did, or the file is over its cap and never read)
   * and the remote's file size; null when it is not diverged.
   */
  async divergedTemplate(name: string): Promise<(DivergedAt & { remote_source: string | null; base_source: string | null; remote_size: number | null }) | null> {
    const at = this.diverged.templates[name];
    if (!at) return null;
    const [path] = templatePaths(name);
    const [r, b] = [await blobCapped(this.git, at.remote, path, readCap(path)), await blobCapped(this.git, at.base, path, readCap(path))];
    // no copy of a shipped name on a side: its shipped bytes are what loaded there
    const shipped = this.library.syncFiles?.shipped(name)?.text ?? null;
    const text = (x: { bytes: Buffer | null; size: number | null }) => (x.size === null ? shipped : (x.bytes?.toString('utf8') ?? null));
    return { ...at, remote_source: text(r), base_source: at.base === null ? null : text(b), remote_size: r.size };
  }

  /** A diverged role's other versions, as divergedTemplate; null when it is not diverged. */
  async divergedRole(name: string): Promise<(DivergedAt & { remote_files: RoleFiles; base_files: RoleFiles; remote_size: number | null }) | null> {
    const at = this.diverged.roles[name];
    if (!at) return null;
    const [md, kit] = rolePaths(name);
    // a file over its cap is never read: that side reads as no files, and remote_size says why
    const files = async (commit: string | null): Promise<RoleFiles> => {
      const roleMd = await blobCapped(this.git, commit, md, readCap(md));
      const k = await blobCapped(this.git, commit, kit, readCap(kit));
      if (!roleMd.bytes || (k.size !== null && !k.bytes)) return null;
      return { role_md: roleMd.bytes.toString('utf8'), kit: k.bytes?.toString('utf8') ?? null };
    };
    const size = (await blobCapped(this.git, at.remote, md, 0)).size;
    return { ...at, remote_files: await files(at.remote), base_files: at.base === null ? null : await files(at.base), remote_size: at.size ?? size };
  }

  /**
   * Keep mine: this desk's copy is committed as an ordinary change, which
   * the next push publishes and the other desks then take (or, when they
   * too changed it since, diverge on); the name is no longer diverged.
   */
  keep(kind: 'templates' | 'roles', name: string, who: string | null = null): Promise<boolean> {
    return this.decide(kind, name, false, who);
  }

  /** Take theirs: the remote's version is written here (HEAD holds it already); the name is no longer diverged. */
  take(kind: 'templates' | 'roles', name: string, who: string | null = null): Promise<boolean> {
    return this.decide(kind, name, true, who);
  }

  private async decide(kind: 'templates' | 'roles', name: string, theirs: boolean, who: string | null): Promise<boolean> {
    const at = this.diverged[kind][name];
    if (!at) return false;
    const label = kind === 'templates' ? name : `role ${name}`;
    let files = null;
    if (theirs) {
      const read = (p: string) => blobAt(this.git, at.remote, p);
      if (kind === 'templates') {
        const [y, m] = templatePaths(name);
        files = { yaml: await read(y), marker: await read(m) };
      } else {
        const [md, kit, marker] = rolePaths(name);
        files = { role_md: await read(md), kit: await read(kit), marker: await read(marker) };
      }
    }
    // keep mine with no copy here (a teammate's new name, refused): this desk's version is none, published as the name's removal
    const none = !theirs && (kind === 'templates' ? !(await this.library.getTemplate(name)) : !(await this.library.getRole(name)));
    const message = none ? `delete ${label} (teammate's version refused)` : `${theirs ? 'take theirs' : 'keep mine'}: ${label} (diverged with ${this.label})`;
    const was = await this.library.syncFiles!.decided(kind, name, files, message, who);
    // take theirs replaces this desk's copy on disk: it stays in the name's history, on a ref of this desk's own
    if (theirs) await this.keepOwn(kind, name, was, `this desk's copy of ${label}, replaced by take theirs (diverged with ${this.label})`);
    delete this.diverged[kind][name];
    this.library.syncFiles?.setDiverged(this.names());
    await this.save();
    await this.announce(new Set(kind === 'templates' ? [name] : []), new Set(kind === 'roles' ? [name] : []));
    return true;
  }

  /**
   * A name this round made diverged: this desk's copy, which HEAD no longer
   * holds, is kept on a ref of its own (history/own.ts), so it stays in the
   * name's history whatever is decided.
   */
  private async keepNewlyDiverged(before: Diverged): Promise<void> {
    for (const kind of ['templates', 'roles'] as const) {
      for (const name of Object.keys(this.diverged[kind])) {
        if (before[kind][name]) continue;
        const label = kind === 'templates' ? name : `role ${name}`;
        await this.keepOwn(kind, name, await this.library.syncFiles!.own(kind, name), `this desk's copy of ${label}, kept while diverged with ${this.label}`);
      }
    }
  }

  /** Never fails the round or the decision: a copy that could not be kept is said at level error (it is still on disk). */
  private async keepOwn(kind: 'templates' | 'roles', name: string, files: Map<string, Buffer | null>, message: string): Promise<void> {
    try {
      const commit = await keepOwn(this.git, kind, name, files, message);
      if (commit) this.logger.info({ kind, name, commit }, "this desk's copy is kept in the name's history on a local ref, never pushed");
    } catch (e) {
      this.logger.error({ kind, name, err: (e as Error).message }, "sync: this desk's copy could not be kept on its own ref");
    }
  }

  /** What the readers answer (state.ts): each diverged name with why. */
  private names(): DivergedNames {
    const why = (o: Record<string, DivergedAt>) => new Map(Object.entries(o).map(([n, at]) => [n, { reason: at.reason, problems: at.problems }]));
    return { templates: why(this.diverged.templates), roles: why(this.diverged.roles) };
  }

  private async load(): Promise<void> {
    this.diverged = await loadDiverged(this.gitDir!);
    this.library.syncFiles?.setDiverged(this.names());
    await this.hideUnread();
  }

  /**
   * The files of names diverged because the remote's version is never read
   * (`too_large`, `unreadable`) are in HEAD and, when this desk has no copy,
   * not on disk: flagged skip-worktree so `git status` stays clean, as for a
   * teammate's files the desk does not load (docs/history.md).
   */
  private async hideUnread(): Promise<void> {
    const paths = (['templates', 'roles'] as const).flatMap((kind) =>
      Object.entries(this.diverged[kind])
        .filter(([, at]) => at.reason === 'too_large' || at.reason === 'unreadable')
        .flatMap(([name]) => (kind === 'templates' ? templatePaths(name) : rolePaths(name))),
    );
    await hideAbsent(this.git, paths).catch((e: Error) => this.logger.warn({ err: e.message }, 'sync: the index was not updated; git status may list a file of the remote as deleted'));
  }

  private save(): Promise<void> {
    return saveDiverged(this.gitDir!, this.diverged);
  }
}

/** A diverged name as GET /sync and the round's event list it: the size only for `too_large`. */
function detailOf(name: string, kind: 'templates' | 'roles', at: DivergedAt): DivergedDetail {
  return { name, kind: kind === 'templates' ? 'template' : 'role', reason: at.reason, problems: at.problems, ...(at.size !== undefined ? { size: at.size } : {}) };
}

/** A path the service does not own: each round lists all of those afresh from the remote's tree. */
const ownedNot = (p: string): boolean => !ownedPath(p);
