import { type Git, GitError } from './git.js';
import { ownCommits, ownPrefixOf } from './own.js';
import type { FileAt, Page, RecentVersion, Version } from './types.js';

/**
 * The readers (docs/history.md): `git log`, `git rev-parse` and `git
 * cat-file` over HEAD, safe beside the commit queue (a reader sees HEAD
 * before or after a commit, never between). Bad input — a commit that is
 * not hex, a path that is not a library path — answers nothing rather than
 * reaching git.
 *
 * Both listings read one walk (docs/history.md, The walk): every commit
 * reachable from a head, merges' second parents too, newest commit date
 * first and never a parent before its children. A page is a position in
 * that walk, so paging reaches each commit once whatever the page size, and
 * a page's `before` may pin the head (`<head>.<last>`, a cursor) so that
 * commits arriving between pages change nothing in a walk under way.
 */

const HEX = /^[0-9a-f]{4,64}$/;
/** root-relative, no `..`, no leading dash or colon: a plain library path */
const PATH = /^(?!-)(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9._\-/]{1,300}$/;
/** a pinned position: the head a walk started from, then the last commit answered (none: from the start) */
const PINNED = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)\.([0-9a-f]{4,64})?$/;
const FS = '\x1f';
const RS = '\x1e';
const FIELDS = `%at${FS}%an <%ae>${FS}%(trailers:key=Who,valueonly,separator=%x2C)${FS}%s${FS}`;
const FORMAT = `--format=${RS}%H${FS}${FIELDS}`;
const FORMAT_PARENTS = `--format=${RS}%H${FS}%P${FS}${FIELDS}`;
const LOG = ['log', '--no-show-signature', '--no-color'] as const;

export const validCommit = (c: unknown): c is string => typeof c === 'string' && HEX.test(c);
export const validPath = (p: unknown): p is string => typeof p === 'string' && PATH.test(p) && !p.endsWith('/');

/** The `before` of a page pinned at `head`, after `after` (a commit of that walk) or from its start. */
export const pinnedAt = (head: string, after: string | null = null): string => `${head}.${after ?? ''}`;

/** A cursor's head and last commit, or null when it is not one. */
export function parsePinned(before: string): { head: string; after: string | null } | null {
  const m = PINNED.exec(before);
  return m ? { head: m[1]!, after: m[2] ?? null } : null;
}

interface Parsed extends RecentVersion {
  parents: string[];
}

function parse(out: string, withParents: boolean): Parsed[] {
  const list: Parsed[] = [];
  for (const rec of out.split(RS)) {
    const f = rec.split(FS);
    if (f.length < (withParents ? 7 : 6)) continue;
    const commit = f.shift()!;
    const parents = withParents ? f.shift()!.split(' ').filter(Boolean) : [];
    const [at, author, who, message, rest] = f as [string, string, string, string, string];
    const paths = rest
      .split(/[\n\0]/)
      .map((s) => s.trim())
      .filter(Boolean)
      .sort();
    list.push({ commit, parents, at: new Date(Number(at) * 1000).toISOString(), author, who: who.trim() || null, message, paths });
  }
  return list;
}

const limit = (page: Page) => Math.max(1, Math.min(10_000, Math.floor(page.limit) || 1));

// ---------------------------------------------------------------- the walk

/** Every commit reachable from one head, in walk order, and each one's place in it. */
interface Walk {
  head: string;
  order: string[];
  index: Map<string, number>;
}

/**
 * A small cache of walks and of names' versions, by head: what a head
 * reaches never changes, so the pages after the first read no history again.
 * On 10,000 commits a page after the first takes about 3 % of the first's
 * time (bench/history.ts, "the walk kept"): each "More" would otherwise walk
 * the whole history again. Bounded, oldest out first; a read that failed is
 * not kept.
 */
class Kept<T> {
  private readonly map = new Map<string, Promise<T | null>>();
  constructor(private readonly size: number) {}
  get(key: string, make: () => Promise<T | null>): Promise<T | null> {
    const had = this.map.get(key);
    if (had) {
      this.map.delete(key);
      this.map.set(key, had);
      return had;
    }
    const p = make().then(
      (v) => {
        if (v === null) this.map.delete(key);
        return v;
      },
      (e: unknown) => {
        this.map.delete(key);
        throw e;
      },
    );
    this.map.set(key, p);
    while (this.map.size > this.size) this.map.delete(this.map.keys().next().value!);
    return p;
  }
}

/** The kept walks and versions of one opened history (open.ts makes one and passes it to every read). */
export interface ReadCache {
  walks: Kept<Walk>;
  named: Kept<{ versions: Version[]; places: number[] }>;
}

export const readCache = (): ReadCache => ({ walks: new Kept(4), named: new Kept(32) });

const FULL = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The commit a revision names (HEAD, or hex checked by the caller), in full; null when none. */
async function resolve(git: Git, rev: string): Promise<string | null> {
  const r = await git.run(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  const id = r.stdout.toString('utf8').trim();
  return r.code === 0 && FULL.test(id) ? id : null;
}

/**
 * Newer first: a later commit date, then (the same second, as two desks'
 * commits often are) the lower id, so the order is the same at every read
 * whatever git's own tie-breaking or its commit-graph file.
 */
const newer = (a: { id: string; ct: number }, b: { id: string; ct: number }) => (a.ct !== b.ct ? a.ct > b.ct : a.id < b.id);

interface WalkNode {
  id: string;
  /** commit date, seconds */
  ct: number;
  parents: string[];
  /** children not yet out */
  children: number;
}

/**
 * The walk from `head` (and from a name's own versions, `own`: commits of
 * this desk's alone, own.ts): a commit comes out once all its children have,
 * newest commit date first among those ready.
 */
async function walkFrom(git: Git, head: string, own: readonly string[] = []): Promise<Walk | null> {
  const r = await git.run([...LOG, '--format=%H %ct %P', head, ...own]);
  if (r.code !== 0) return null;
  const nodes = new Map<string, WalkNode>();
  for (const line of r.stdout.toString('utf8').split('\n')) {
    const [id, ct, ...parents] = line.trim().split(' ');
    if (id && ct) nodes.set(id, { id, ct: Number(ct), parents, children: 0 });
  }
  // a parent outside the walk (a shallow clone's edge) is no one's to wait for
  for (const n of nodes.values()) n.parents = n.parents.filter((p) => nodes.has(p));
  for (const n of nodes.values()) for (const p of n.parents) nodes.get(p)!.children++;
  const ready = new Heap<WalkNode>(newer);
  for (const n of nodes.values()) if (n.children === 0) ready.push(n);
  const order: string[] = [];
  for (let n = ready.pop(); n; n = ready.pop()) {
    order.push(n.id);
    for (const p of n.parents) {
      const q = nodes.get(p)!;
      if (--q.children === 0) ready.push(q);
    }
  }
  return { head, order, index: new Map(order.map((id, i) => [id, i])) };
}

/** A binary heap whose top is the item `first` puts before every other. */
class Heap<T> {
  private readonly a: T[] = [];
  constructor(private readonly first: (x: T, y: T) => boolean) {}
  push(v: T): void {
    const a = this.a;
    a.push(v);
    for (let i = a.length - 1; i > 0; ) {
      const up = (i - 1) >> 1;
      if (!this.first(a[i]!, a[up]!)) break;
      [a[i], a[up]] = [a[up]!, a[i]!];
      i = up;
    }
  }
  pop(): T | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.first(a[l]!, a[m]!)) m = l;
        if (r < a.length && this.first(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

const walkOf = (git: Git, kept: ReadCache, head: string, own: readonly string[] = []) => kept.walks.get(`${git.gitDir}\0${head}\0${own.join(',')}`, () => walkFrom(git, head, own));

/**
 * Where a page starts. No `before`: HEAD now, from the top. A commit (the
 * `next` of a page before): HEAD now, after that commit. A pinned position:
 * its head, after its commit. A commit the walk does not hold (one no
 * longer reachable from HEAD) starts the walk from that commit instead,
 * after it: what is older than it, as `before` always answered.
 */
async function positionOf(git: Git, kept: ReadCache, before: string | undefined, own: readonly string[] = []): Promise<{ walk: Walk; from: number } | null> {
  let headRev = 'HEAD';
  let afterRev: string | null = null;
  if (before !== undefined) {
    const pinned = parsePinned(before);
    if (pinned) [headRev, afterRev] = [pinned.head, pinned.after];
    else if (validCommit(before)) afterRev = before;
    else return null;
  }
  // a full id needs no rev-parse: a walk from it reads it, and fails for what is not a commit
  const head = FULL.test(headRev) ? headRev : await resolve(git, headRev);
  if (!head) return null;
  const walk = await walkOf(git, kept, head, own);
  if (!walk) return null;
  if (afterRev === null) return { walk, from: 0 };
  const after = walk.index.has(afterRev) ? afterRev : await resolve(git, afterRev);
  if (!after) return null;
  const at = walk.index.get(after);
  if (at !== undefined) return { walk, from: at + 1 };
  const alone = await walkOf(git, kept, after);
  return alone ? { walk: alone, from: 1 } : null;
}

// ---------------------------------------------------------------- readers

/**
 * The versions of `path` in the walk from `head`: each commit that changed
 * it, on every side of every merge (`--full-history`, docs/history.md,
 * Versions of a name). A merge is a version only when its `path` differs
 * from every parent's: one that kept a side's bytes made nothing new.
 */
async function versionsFrom(git: Git, walk: Walk, path: string, own: readonly string[]): Promise<{ versions: Version[]; places: number[] } | null> {
  const out = await git.run([...LOG, '--full-history', FORMAT_PARENTS, walk.head, ...own, '--', path]);
  if (out.code !== 0) return null;
  const all = parse(out.stdout.toString('utf8'), true);
  const merges = all.filter((e) => e.parents.length > 1);
  let kept = all;
  if (merges.length) {
    const asked = merges.flatMap((m) => [m.commit, ...m.parents]);
    const r = await git.run(['cat-file', '--batch-check'], { input: asked.map((c) => `${c}:${path}\n`).join('') });
    if (r.code !== 0) return null;
    const lines = r.stdout.toString('utf8').split('\n');
    if (lines.length < asked.length) return null;
    // the object at `path` in each, or '' when it has none there
    const ids = new Map(asked.map((c, i) => [c, /^([0-9a-f]{40,64}) /.exec(lines[i]!)?.[1] ?? '']));
    const same = new Set(merges.filter((m) => m.parents.some((p) => ids.get(p) === ids.get(m.commit))).map((m) => m.commit));
    kept = all.filter((e) => !same.has(e.commit));
  }
  const mine = new Set(own);
  const placed = kept.flatMap((e) => {
    const at = walk.index.get(e.commit);
    // a version of this desk's own (a root commit on an own ref) is in no history HEAD publishes
    return at === undefined ? [] : [{ at, v: { commit: e.commit, at: e.at, author: e.author, who: e.who, message: e.message, shared: !mine.has(e.commit) } }];
  });
  placed.sort((a, b) => a.at - b.at);
  return { versions: placed.map((p) => p.v), places: placed.map((p) => p.at) };
}

export async function log(git: Git, path: string, page: Page, kept: ReadCache): Promise<Version[]> {
  if (!validPath(path)) return [];
  const prefix = ownPrefixOf(path);
  const own = prefix ? (await ownCommits(git, prefix)).map((o) => o.commit) : [];
  const pos = await positionOf(git, kept, page.before, own);
  if (!pos) return [];
  const all = await kept.named.get(`${git.gitDir}\0${pos.walk.head}\0${own.join(',')}\0${path}`, () => versionsFrom(git, pos.walk, path, own));
  if (!all) return [];
  let i = 0;
  while (i < all.places.length && all.places[i]! < pos.from) i++;
  return all.versions.slice(i, i + limit(page));
}

export async function recent(git: Git, page: Page, kept: ReadCache): Promise<RecentVersion[]> {
  const pos = await positionOf(git, kept, page.before);
  if (!pos) return [];
  const ids = pos.walk.order.slice(pos.from, pos.from + limit(page));
  if (ids.length === 0) return [];
  // in the order asked (`--no-walk=unsorted`); a merge lists no paths, as `git log` shows none for it
  const out = await git.run([...LOG, '--no-walk=unsorted', '--name-only', '-z', FORMAT, ...ids]);
  if (out.code !== 0) return [];
  const got = new Map(parse(out.stdout.toString('utf8'), false).map(({ parents: _, ...e }) => [e.commit, e]));
  return ids.flatMap((id) => (got.has(id) ? [got.get(id)!] : []));
}

export async function show(git: Git, path: string, commit: string): Promise<string | null> {
  if (!validCommit(commit) || !validPath(path)) return null;
  const r = await git.run(['cat-file', 'blob', `${commit}^{commit}:${path}`]);
  return r.code === 0 ? r.stdout.toString('utf8') : null;
}

/**
 * Many files at many commits in one `git cat-file --batch`: a page of
 * versions needs each one's bytes for its state and ETag, and one process
 * per version was most of a page's time (120 commits on a loaded 2-core box,
 * p50: 20 versions 785 ms, 100 versions 3.6 s). A file `show` would answer
 * null for answers null; a batch that fails as a whole throws.
 */
export async function showMany(git: Git, items: readonly FileAt[]): Promise<(string | null)[]> {
  const out: (string | null)[] = items.map(() => null);
  const asked = items.flatMap((it, i) => (validCommit(it.commit) && validPath(it.path) ? [i] : []));
  if (asked.length === 0) return out;
  const args = ['cat-file', '--batch'];
  const r = await git.run(args, { input: asked.map((i) => `${items[i]!.commit}^{commit}:${items[i]!.path}\n`).join('') });
  // a batch that exited 0 with its output cut short fails like one that exited non-zero
  const torn = () => new GitError(args, r.code === 0 ? { ...r, code: 1, stderr: r.stderr || 'its output ended early' } : r);
  if (r.code !== 0) throw torn();
  const buf = r.stdout;
  let pos = 0;
  for (const i of asked) {
    const nl = buf.indexOf(10, pos);
    if (nl === -1) throw torn();
    const head = buf.subarray(pos, nl).toString('utf8');
    pos = nl + 1;
    // `<oid> <type> <size>`, or `<name> missing` / `<name> ambiguous` with no body
    const m = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(head);
    if (!m) continue;
    const size = Number(m[2]);
    if (m[1] === 'blob') out[i] = buf.subarray(pos, pos + size).toString('utf8');
    pos += size + 1;
  }
  return out;
}
