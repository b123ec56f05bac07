import type { RoleSide, SyncFiles, SyncRound } from './contract.js';
import type { TreeRef } from '../history/recorder.js';
import { KEPT_BASES, LAUNCHES, PROPOSALS, ROLES, rolePaths, TEMPLATES, templatePaths, unitOf } from '../layout.js';
import { isRoleName } from '../../template/names.js';
import { blobAt, type Git, GitError } from '../history/git.js';
import { type Blob, mergePlainFile, mergeTemplate, oneSide, type Outcome, same, type TemplateSide } from './merge.js';
import { readCap } from '../disk/fs-safe.js';
import { roleRevision, sha256Hex } from '../disk/markers.js';

/**
 * One merge of the remote's head into this desk (docs/history.md, Sync): the
 * names the remote changed since the merge base are decided one by one
 * (sync/merge.ts) and written in their queue slots (sync/files.ts); then one
 * commit, queued like every other (commit-queue.ts), records the result with
 * both heads as parents — or HEAD simply moves to the remote's head when this
 * desk had nothing of its own. Nothing is lost: a conflict keeps this desk's
 * files, and the remote's version stays reachable as the second parent.
 */

/** Why a name is diverged (docs/history.md, "Diverged"): a person must decide between this desk's copy and the remote's. */
export type DivergedReason = 'conflict' | 'invalid' | 'too_large' | 'deleted_vs_edited' | 'unreadable';

/** Where a name's divergence came from: the commits to read its base and the remote's version from, and why. */
export interface DivergedAt {
  /** the merge base, or null when the two histories share none */
  base: string | null;
  remote: string;
  reason: DivergedReason;
  /** the validator's errors for `invalid` (code and message), else none */
  problems: { code: string; message: string }[];
  /** for `too_large`: the size in bytes of the remote's file that is over its cap (never read) */
  size?: number;
  /**
   * 2: HEAD holds the remote's version of the name and this desk's copy is
   * only in the working tree (and in the commits before the merge). 1: an
   * entry made before that design, whose merge commit holds this desk's copy.
   */
  form: 1 | 2;
}

export interface Diverged {
  templates: Record<string, DivergedAt>;
  roles: Record<string, DivergedAt>;
}

/** Why a path of the remote's is not taken into the working tree (GET /sync `ignored`; docs/history.md). */
export type IgnoredReason = 'subfolder' | 'not_yaml' | 'not_a_name' | 'not_library' | 'too_large' | 'hash_mismatch' | 'unreadable';

export interface IgnoredPath {
  path: string;
  reason: IgnoredReason;
}

export type { TreeRef };

export interface RoundResult {
  /** names whose files the round wrote, and the other files it wrote (kept bases, proposal records) by path */
  written: { templates: string[]; roles: string[]; plain: string[] };
  /** names whose diverged entry was added, changed or dropped */
  touched: { templates: string[]; roles: string[] };
  /** some name's files are neither side's as they were (a merge): no fast-forward then */
  ownFiles: boolean;
  /** the remote's paths that are not written to disk, and why: every path of its head the service does not own, and the files this round left out */
  ignored: IgnoredPath[];
  /** every file path the remote's head holds */
  remotePaths: ReadonlySet<string>;
}

export interface RoundContext {
  git: Git;
  files: SyncFiles;
  /** the remote as the commit message names it (no credentials) */
  remoteLabel: string;
  /** told how many of the round's names are done, and of how many (0 first) */
  progress?: (done: number, total: number) => void;
  /** true once the service is stopping: the round stops between two names, and the next start rolls it forward */
  stopping?: () => boolean;
  /** called before the round writes its first file, with HEAD as the round found it: the round's journal (sync/store.ts) */
  begin?: (head: string | null) => Promise<void>;
  /**
   * Rolling a round forward after a crash: every name is decided from HEAD's
   * files, never from the disk, where the killed round may have written some
   * of its own (docs/history.md, "What survives a crash")
   */
  rollForward?: boolean;
}

/** A remote blob that is not read: over its cap (git said its size first), or one git cannot give. */
export class OddBlob {
  constructor(
    readonly why: 'too_large' | 'unreadable',
    readonly size: number | null,
  ) {}
}

export type Side = Blob | OddBlob;

/** At most this many bytes of blobs per `cat-file --batch`: a chunk of large files never holds one huge buffer. */
const READ_BYTES = 32 * 1024 * 1024;

/** `<oid> <type> <size>` lines of `--batch-check`, or `<oid> missing`. */
async function sizes(git: Git, ids: readonly string[]): Promise<({ type: string; size: number } | null)[]> {
  const r = await git.run(['cat-file', '--batch-check'], { input: ids.map((id) => `${id}\n`).join('') });
  if (r.code !== 0) throw new GitError(['cat-file', '--batch-check'], r);
  const lines = r.stdout.toString('utf8').split('\n');
  return ids.map((_, i) => {
    const m = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(lines[i] ?? '');
    return m ? { type: m[1]!, size: Number(m[2]) } : null;
  });
}

/**
 * Blobs by id (docs/history.md, Sync), each with its cap. Git is asked for
 * every size first (`cat-file --batch-check`), so a blob over its cap is
 * never read: it comes back as OddBlob `too_large`; one git does not have,
 * or that is not a blob, as OddBlob `unreadable` — never as absent, which
 * would read as "the remote removed it". The rest are read by `cat-file
 * --batch`, in calls of at most READ_BYTES. By id, not `<commit>:<path>`:
 * a `templates/` of 20,000 entries made every path lookup a long walk.
 * Null in, null out.
 */
export async function blobsById(git: Git, asks: readonly ({ id: string; cap: number } | null)[]): Promise<Side[]> {
  const out: Side[] = asks.map(() => null);
  const asked = asks.flatMap((a, i) => (a === null ? [] : [i]));
  if (asked.length === 0) return out;
  const known = await sizes(git, asked.map((i) => asks[i]!.id));
  const read: number[] = [];
  const size: number[] = [];
  for (const [k, i] of asked.entries()) {
    const s = known[k];
    if (s?.type !== 'blob') out[i] = new OddBlob('unreadable', null);
    else if (s.size > asks[i]!.cap) out[i] = new OddBlob('too_large', s.size);
    else {
      read.push(i);
      size.push(s.size);
    }
  }
  for (let from = 0; from < read.length; ) {
    let bytes = 0;
    let to = from;
    while (to < read.length && (to === from || bytes + size[to]! <= READ_BYTES)) bytes += size[to++]!;
    const part = read.slice(from, to);
    from = to;
    const r = await git.run(['cat-file', '--batch'], { input: part.map((i) => `${asks[i]!.id}\n`).join('') });
    if (r.code !== 0) throw new GitError(['cat-file', '--batch'], r);
    const buf = r.stdout;
    let pos = 0;
    for (const i of part) {
      const nl = buf.indexOf(10, pos);
      if (nl === -1) {
        out[i] = new OddBlob('unreadable', null);
        continue;
      }
      const m = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(buf.subarray(pos, nl).toString('utf8'));
      pos = nl + 1;
      if (m?.[1] !== 'blob') {
        out[i] = new OddBlob('unreadable', null);
        continue;
      }
      const size = Number(m[2]);
      // a copy, so the round keeps no slice of the whole batch's output alive
      out[i] = Buffer.from(buf.subarray(pos, pos + size));
      pos += size + 1;
    }
  }
  return out;
}

/** One entry of a commit's whole tree, as `ls-tree -r -t` lists it. */
interface TreeEntry {
  mode: string;
  type: string;
  id: string;
  path: string;
}

/** Every entry of a commit's tree, folders too (null commit: none): one git process, read once per round. */
async function treeOf(git: Git, commit: string | null): Promise<TreeEntry[]> {
  if (commit === null) return [];
  const out = await git.ok(['ls-tree', '-r', '-t', '-z', '--full-tree', commit]);
  const entries: TreeEntry[] = [];
  for (const line of out.split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, id] = line.slice(0, tab).split(' ') as [string, string, string];
    entries.push({ mode, type, id, path: line.slice(tab + 1) });
  }
  return entries;
}

/** Path → mode and id of a tree's files (links and submodules too: a commit may carry them by id). */
const entriesOf = (tree: readonly TreeEntry[]): Map<string, { mode: string; id: string }> =>
  new Map(tree.flatMap((e) => (e.type === 'tree' ? [] : [[e.path, { mode: e.mode, id: e.id }] as const])));

/** Why a path of the remote's tree that the service does not own is not taken into the working tree. */
export function whyIgnored(p: string): IgnoredReason {
  const parts = p.split('/');
  if (parts[0] === TEMPLATES && parts.length === 2) return parts[1]!.endsWith('.yaml') ? 'not_a_name' : 'not_yaml';
  if (parts[0] === TEMPLATES && parts[1] === KEPT_BASES && parts.length === 3) return 'not_a_name';
  if (parts[0] === TEMPLATES) return 'subfolder';
  if (parts[0] === ROLES && parts.length === 3 && (parts[1] === KEPT_BASES || !isRoleName(parts[1]!))) return 'not_a_name';
  if ((parts[0] === PROPOSALS || parts[0] === LAUNCHES) && parts.length === 2) return 'not_a_name';
  if ((parts[0] === ROLES || parts[0] === PROPOSALS || parts[0] === LAUNCHES) && parts.length > 2) return 'subfolder';
  return 'not_library';
}

/** A path the service reads or writes: every other path of the remote's stays in HEAD as the remote has it, and never on disk. */
const owned = (p: string): boolean => p === '.gitignore' || unitOf(p) !== null;

/**
 * The bytes of `path` in `commit` when it is at most `cap` bytes, and its size
 * either way (git is asked the size first, so a file over the cap is never
 * read); both null when the commit does not hold it or git cannot give it.
 */
export async function blobCapped(git: Git, commit: string | null, path: string, cap: number): Promise<{ bytes: Buffer | null; size: number | null }> {
  if (commit === null) return { bytes: null, size: null };
  const [s] = await sizes(git, [`${commit}:${path}`]).catch(() => [null]);
  if (s?.type !== 'blob') return { bytes: null, size: null };
  return { bytes: s.size > cap ? null : await blobAt(git, commit, path), size: s.size };
}

export async function revOrNull(git: Git, rev: string): Promise<string | null> {
  try {
    return (await git.line(['rev-parse', '-q', '--verify', `${rev}^{commit}`])) || null;
  } catch {
    return null;
  }
}

export async function isAncestor(git: Git, a: string, b: string): Promise<boolean> {
  try {
    await git.bytes(['merge-base', '--is-ancestor', a, b]);
    return true;
  } catch {
    return false;
  }
}

async function mergeBase(git: Git, a: string, b: string): Promise<string | null> {
  try {
    return (await git.line(['merge-base', a, b])) || null;
  } catch {
    return null; // unrelated histories: two desks that started their repositories apart
  }
}

/** Root-relative paths the remote changed since `base` (all of its files when there is no base). */
async function changedOnRemote(git: Git, base: string | null, remote: string): Promise<string[]> {
  const args = base ? ['diff', '--name-only', '--no-renames', '-z', base, remote] : ['ls-tree', '-r', '--name-only', '-z', remote];
  return (await git.ok(args)).split('\0').filter(Boolean);
}

/** Modes of a plain file in a git tree: the only entries the service takes at its paths. */
const FILE_MODES: ReadonlySet<string> = new Set(['100644', '100755']);

/** A folder the service writes its files into: a link or a submodule there would carry its writes elsewhere. */
const isServiceFolder = (p: string): boolean => {
  const parts = p.split('/');
  if (parts.length === 1) return p === TEMPLATES || p === ROLES || p === PROPOSALS || p === LAUNCHES;
  if (parts.length === 2) return (parts[0] === TEMPLATES && parts[1] === KEPT_BASES) || (parts[0] === ROLES && (parts[1] === KEPT_BASES || isRoleName(parts[1]!)));
  return false;
};

/** A remote head holding a link, a submodule or some other non-file at a path of the service's own (or a folder it writes into). */
export class HostileTreeError extends Error {
  override readonly name = 'HostileTreeError';
  constructor(
    readonly commit: string,
    readonly paths: string[],
  ) {
    super(`the remote's head ${commit.slice(0, 12)} holds what is not a plain file at ${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ` and ${paths.length - 5} more` : ''}: nothing of it is merged`);
  }
}

/**
 * The paths of the remote's tree where it holds a link (120000), a submodule
 * (160000) or any other entry that is not a plain file, at a path the
 * service reads or writes (layout.ts `unitOf`, `.gitignore`) or at a folder
 * it writes into. fetch's fsck (git.ts) already refused `..` and `.git`
 * entries; these it lets through. Entries elsewhere (a `README` link, say)
 * are no business of the service: left to git, never written.
 */
export function hostilePaths(tree: readonly TreeEntry[]): string[] {
  const bad: string[] = [];
  for (const { mode, type, path: p } of tree) {
    const owned = p === '.gitignore' || unitOf(p) !== null;
    if (owned && !FILE_MODES.has(mode)) bad.push(p);
    else if (!owned && type !== 'tree' && !FILE_MODES.has(mode) && isServiceFolder(p)) bad.push(p);
  }
  return bad;
}

/**
 * Merges the remote's head, once its tree passed hostilePaths: a head with
 * such an entry is refused whole (HostileTreeError), with nothing written
 * and HEAD where it was. Whole, not path by path: the round could otherwise
 * fast-forward HEAD onto that very tree, and a head a desk of the team would
 * not have made is no history to take a part of (docs/security.md).
 *
 * The round's commit holds, besides the files the round wrote: the remote's
 * version of every diverged name (HEAD is what this desk publishes, and an
 * undecided name publishes nothing of this desk's), and the remote's entries
 * of every path the service does not own (a teammate's README, a
 * `templates/drafts/` folder), taken by id and never written to disk.
 */
export async function mergeRemote(rc: RoundContext, remote: string, diverged: Diverged): Promise<RoundResult> {
  const { git } = rc;
  const remoteTree = await treeOf(git, remote);
  const remoteIds = entriesOf(remoteTree);
  const result: RoundResult = { written: { templates: [], roles: [], plain: [] }, touched: { templates: [], roles: [] }, ownFiles: false, ignored: [], remotePaths: new Set(remoteIds.keys()) };
  // every round, a quiet one too: the list says what the remote holds that this desk does not load, not what the last merge brought
  for (const [p, e] of remoteIds) if (!owned(p) && e.mode !== '160000') result.ignored.push({ path: p, reason: whyIgnored(p) });
  const head = await revOrNull(rc.git, 'HEAD');
  if (head && (await isAncestor(git, remote, head))) return result;
  const bad = hostilePaths(remoteTree);
  if (bad.length) throw new HostileTreeError(remote, bad);
  const base = head ? await mergeBase(git, head, remote) : null;
  const templates = new Set<string>();
  const roles = new Set<string>();
  const plain = new Set<string>();
  const refs = new Map<string, TreeRef>();
  for (const p of await changedOnRemote(git, base, remote)) {
    const u = unitOf(p);
    if (u?.kind === 'template') templates.add(u.name);
    else if (u?.kind === 'role') roles.add(u.name);
    else if (u?.kind === 'plain') plain.add(u.path);
    else if (p !== '.gitignore') refs.set(p, remoteIds.get(p) ?? null);
  }
  await rc.begin?.(head);
  const files = rc.files.round();
  try {
    const headIds = rc.rollForward ? entriesOf(await treeOf(git, head)) : null;
    await decideEach(rc, files, { base, remote, templates, roles, plain, baseIds: entriesOf(await treeOf(git, base)), remoteIds, headIds, refs }, diverged, result);
  } catch (e) {
    files.abandon();
    throw e;
  }
  // nothing of this desk's own since the merge base: HEAD can simply move to the remote's head
  const fastForward = head === null || (!result.ownFiles && (await isAncestor(git, head, remote)));
  files.finish({ message: subject(rc, result, diverged), remote, head, fastForward, refs });
  return result;
}

type Entries = Map<string, { mode: string; id: string }>;

interface Changed {
  base: string | null;
  remote: string;
  templates: Set<string>;
  roles: Set<string>;
  plain: Set<string>;
  /** path → mode and id in each commit (HEAD's only when rolling forward) */
  baseIds: Entries;
  remoteIds: Entries;
  headIds: Entries | null;
  /** what the round's commit takes by id: diverged names' remote files, paths the service does not own */
  refs: Map<string, TreeRef>;
}

/** Names read from git per batch: bounds what a round holds at once, whatever its size. */
const CHUNK = 256;

const TOO_LARGE = { kind: 'conflict', why: 'too_large' } as const;
const UNREADABLE = { kind: 'conflict', why: 'unreadable' } as const;
const oddOutcome = (x: OddBlob) => (x.why === 'too_large' ? TOO_LARGE : UNREADABLE);

/** The reason a conflict outcome is kept under (docs/api.md, Sync). */
const REASON: Record<'lines' | 'invalid' | 'deleted' | 'too_large' | 'unreadable', DivergedReason> = {
  lines: 'conflict',
  invalid: 'invalid',
  deleted: 'deleted_vs_edited',
  too_large: 'too_large',
  unreadable: 'unreadable',
};

/** A name diverged because the remote's file was never read: once it can be read, nothing of it was ever compared. */
const unread = (at: DivergedAt | undefined): boolean => at?.reason === 'too_large' || at?.reason === 'unreadable';

const odd = (...xs: Side[]): OddBlob | null => (xs.find((x) => x instanceof OddBlob) as OddBlob | undefined) ?? null;
const blob = (x: Side): Blob => (x instanceof OddBlob ? null : x);

/**
 * Each changed name decided and written in its slot, its files added to the
 * round's commit; `progress` is told after each name. Names are taken a
 * chunk at a time, their sides read by one git process per chunk; every
 * write is file I/O, so the service answers between names.
 *
 * A name already diverged is never merged again (its base is no longer the
 * point both copies grew from): it is settled when the remote now holds this
 * desk's copy, and otherwise stays diverged on the remote's newer version.
 */
async function decideEach(rc: RoundContext, files: SyncRound, c: Changed, diverged: Diverged, result: RoundResult): Promise<void> {
  const { git } = rc;
  const { base, remote, baseIds, remoteIds, headIds, refs } = c;
  const total = c.plain.size + c.templates.size + c.roles.size;
  let done = 0;
  const step = () => {
    rc.progress?.(++done, total);
    // a stop's grace is seconds; a round of thousands of names is minutes: it stops here and the next start rolls it forward
    if (rc.stopping?.()) throw new Error('the service is stopping; the round goes on at the next start');
  };
  rc.progress?.(0, total);
  const mark = (kind: 'templates' | 'roles', name: string, paths: readonly string[], out: Outcome<unknown>, problems: DivergedAt['problems'], remoteOdd: OddBlob | null) => {
    const had = diverged[kind][name];
    if (out.kind === 'conflict') {
      const size = out.why === 'too_large' && remoteOdd?.size != null ? { size: remoteOdd.size } : {};
      diverged[kind][name] = { base, remote, reason: REASON[out.why], problems, form: 2, ...size };
    } else delete diverged[kind][name];
    // HEAD takes the remote's version of a name left diverged (this desk's copy stays on disk, undecided), and of one
    // settled because the remote now holds this desk's copy
    if (out.kind === 'conflict' || had) for (const p of paths) refs.set(p, remoteIds.get(p) ?? null);
    if (had || out.kind === 'conflict') result.touched[kind].push(name);
  };
  /** base, remote (and HEAD's, rolling forward) sides of each path, for a chunk of paths */
  const sides = async (paths: string[]) => {
    const ask = (m: Entries | null, p: string) => {
      const e = m?.get(p);
      return e ? { id: e.id, cap: readCap(p) } : null;
    };
    const got = await blobsById(git, paths.flatMap((p) => [ask(baseIds, p), ask(remoteIds, p), ask(headIds, p)]));
    return (i: number) => ({ b: got[3 * i]!, r: got[3 * i + 1]!, h: got[3 * i + 2]! });
  };
  // kept bases first: a template merged below may name one
  for (const chunk of chunks([...c.plain].sort())) {
    const side = await sides(chunk);
    for (const [i, path] of chunk.entries()) {
      const { b, r, h } = side(i);
      const bad = odd(b, r);
      if (bad) result.ignored.push({ path, reason: bad.why });
      else if (r !== null && !baseMatches(path, blob(r)!)) result.ignored.push({ path, reason: 'hash_mismatch' });
      else {
        const out = await files.plain(path, (local) => mergePlainFile(blob(b), headIds ? blob(h) : local, blob(r)));
        if (out.kind === 'write') result.written.plain.push(path);
      }
      step();
    }
  }
  for (const chunk of chunks([...c.templates].sort())) {
    const side = await sides(chunk.flatMap((name) => templatePaths(name)));
    for (const [i, name] of chunk.entries()) {
      const [y, m] = [side(2 * i), side(2 * i + 1)];
      const shipped = rc.files.shipped(name);
      const mc = { shippedHash: shipped?.hash ?? null, shippedText: shipped?.text ?? null, valid: (s: string) => rc.files.valid(name, s) };
      const wasDiverged = name in diverged.templates;
      const wasUnread = unread(diverged.templates[name]);
      const remoteSide = { yaml: blob(y.r), marker: blob(m.r) };
      const bad = odd(y.b, m.b, y.r, m.r);
      const remoteOdd = odd(y.r, m.r);
      // rolling forward, a name decides from HEAD's files; a diverged name's copy is only on disk
      const fromHead = headIds && !wasDiverged && !odd(y.h, m.h) ? { yaml: blob(y.h), marker: blob(m.h) } : null;
      const decide = (disk: TemplateSide): Outcome<TemplateSide> => {
        const local = fromHead ?? disk;
        // before any comparison: an unread remote file is no "absent", and "absent here == absent there" would drop it
        if (remoteOdd) return oddOutcome(remoteOdd);
        if (same(local.yaml, remoteSide.yaml) && same(local.marker, remoteSide.marker)) return { kind: 'keep' };
        // the remote's file, never read until now, is within its cap again: decided afresh, as if neither side had had it
        if (wasUnread) return mergeTemplate({ yaml: null, marker: null }, local, remoteSide, mc);
        if (bad) return oddOutcome(bad);
        if (wasDiverged) return againstDiverged(local.yaml, remoteSide.yaml, mc.valid);
        return mergeTemplate({ yaml: blob(y.b), marker: blob(m.b) }, local, remoteSide, mc);
      };
      const out = await files.template(name, decide, { found: !headIds && !wasDiverged });
      if (out.kind === 'write' && out.how === 'merged') result.ownFiles = true;
      if (out.kind === 'write') result.written.templates.push(name);
      const problems = out.kind === 'conflict' && out.why === 'invalid' && remoteSide.yaml ? rc.files.problems(name, remoteSide.yaml.toString('utf8')) : [];
      mark('templates', name, templatePaths(name), out, problems, remoteOdd);
      step();
    }
  }
  for (const chunk of chunks([...c.roles].sort())) {
    const side = await sides(chunk.flatMap((name) => rolePaths(name)));
    for (const [i, name] of chunk.entries()) {
      const [md, kit, marker] = [side(3 * i), side(3 * i + 1), side(3 * i + 2)];
      const b = { role_md: blob(md.b), kit: blob(kit.b), marker: blob(marker.b) };
      const r = { role_md: blob(md.r), kit: blob(kit.r), marker: blob(marker.r) };
      const bad = odd(md.b, kit.b, marker.b, md.r, kit.r, marker.r);
      const remoteOdd = odd(md.r, kit.r, marker.r);
      const wasDiverged = name in diverged.roles;
      const wasUnread = unread(diverged.roles[name]);
      const fromHead = headIds && !wasDiverged && !odd(md.h, kit.h, marker.h) ? { role_md: blob(md.h), kit: blob(kit.h), marker: blob(marker.h) } : null;
      const problems = r.role_md ? rc.files.roleProblems(r.role_md, r.kit) : [];
      const decide = (disk: RoleSide): Outcome<RoleSide> => {
        const local = fromHead ?? disk;
        if (remoteOdd) return oddOutcome(remoteOdd);
        if (same(local.role_md, r.role_md) && same(local.kit, r.kit) && same(local.marker, r.marker)) return { kind: 'keep' };
        if (wasUnread) {
          const one = oneSide({ role_md: null, kit: null, marker: null }, local, r) ?? { kind: 'conflict', why: 'lines' };
          return one.kind === 'write' && problems.length ? { kind: 'conflict', why: 'invalid' } : one;
        }
        if (bad) return oddOutcome(bad);
        if (wasDiverged) return { kind: 'conflict', why: r.role_md === null ? 'deleted' : problems.length ? 'invalid' : 'lines' };
        // a role is small and its kit is JSON: a change on both sides is a conflict, never a line merge
        const one = oneSide(b, local, r) ?? { kind: 'conflict', why: 'lines' };
        return one.kind === 'write' && problems.length ? { kind: 'conflict', why: 'invalid' } : one;
      };
      const out = await files.role(name, decide, { found: !headIds && !wasDiverged });
      if (out.kind === 'write') result.written.roles.push(name);
      mark('roles', name, rolePaths(name), out, out.kind === 'conflict' && out.why === 'invalid' ? problems : [], remoteOdd);
      step();
    }
  }
}

/**
 * A kept base is named by what it holds: a template's by the sha256 of its
 * bytes, a role's by the revision of its role.md and kit.json. One whose
 * bytes say otherwise is never taken (any other plain file passes).
 */
function baseMatches(path: string, bytes: Buffer): boolean {
  const [top, folder, file] = path.split('/');
  if (folder !== KEPT_BASES || !file) return true;
  const name = file.replace(/\.(yaml|json)$/, '');
  if (top === TEMPLATES) return sha256Hex(bytes) === name;
  try {
    const b = JSON.parse(bytes.toString('utf8')) as { role_md?: unknown; kit?: unknown };
    if (typeof b.role_md !== 'string' || (b.kit !== null && typeof b.kit !== 'string')) return false;
    return roleRevision(Buffer.from(b.role_md), b.kit === null ? null : Buffer.from(b.kit)) === name;
  } catch {
    return false;
  }
}

/** A name already diverged, whose remote version moved on: still diverged, and why now. */
function againstDiverged(local: Blob, remote: Blob, valid: (s: string) => boolean): Outcome<TemplateSide> {
  if (remote === null) return { kind: 'conflict', why: local === null ? 'lines' : 'deleted' };
  return { kind: 'conflict', why: valid(remote.toString('utf8')) ? 'lines' : 'invalid' };
}

function chunks<T>(xs: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += CHUNK) out.push(xs.slice(i, i + CHUNK));
  return out;
}

function subject(rc: RoundContext, r: RoundResult, diverged: Diverged): string {
  const names = [...r.written.templates, ...r.written.roles.map((n) => `role ${n}`)];
  const left = [...Object.keys(diverged.templates), ...Object.keys(diverged.roles).map((n) => `role ${n}`)];
  const took = names.length ? `: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}` : '';
  return `sync with ${rc.remoteLabel}${took}${left.length ? ` (diverged: ${left.join(', ')})` : ''}`;
}
