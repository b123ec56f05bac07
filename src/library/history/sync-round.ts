import type { SyncFiles, SyncRound } from './sync-contract.js';
import { KEPT_BASES, PROPOSALS, ROLES, rolePaths, TEMPLATES, templatePaths, unitOf } from '../layout.js';
import { isRoleName } from '../../template/names.js';
import { type Git, GitError } from './git.js';
import { type Blob, mergePlainFile, mergeTemplate, oneSide } from './sync-merge.js';

/**
 * One merge of the remote's head into this desk (docs/history.md, Sync): the
 * names the remote changed since the merge base are decided one by one
 * (sync-merge.ts) and written in their queue slots (sync-files.ts); then one
 * commit, queued like every other (commit-queue.ts), records the result with
 * both heads as parents — or HEAD simply moves to the remote's head when this
 * desk had nothing of its own. Nothing is lost: a conflict keeps this desk's
 * files, and the remote's version stays reachable as the second parent.
 */

/** Where a name's conflict came from: the commits to read its base and the remote's version from. */
export interface DivergedAt {
  /** the merge base, or null when the two histories share none */
  base: string | null;
  remote: string;
}

export interface Diverged {
  templates: Record<string, DivergedAt>;
  roles: Record<string, DivergedAt>;
}

export interface RoundResult {
  /** names whose files the round wrote, and the other files it wrote (kept bases, proposal records) by path */
  written: { templates: string[]; roles: string[]; plain: string[] };
  /** names whose diverged entry was added or dropped */
  touched: { templates: string[]; roles: string[] };
  /** some name's files are neither side's as they were (a merge, or a conflict kept): no fast-forward then */
  ownFiles: boolean;
}

export interface RoundContext {
  git: Git;
  files: SyncFiles;
  /** the remote as the commit message names it (no credentials) */
  remoteLabel: string;
  /** told how many of the round's names are done, and of how many (0 first) */
  progress?: (done: number, total: number) => void;
  /** true once the service is stopping: the round stops between two names, and what it wrote is committed (abandon) */
  stopping?: () => boolean;
}

/**
 * Blobs by id, read by one `git cat-file --batch`: a round of 20,000 names
 * would otherwise start four git processes per name. By id, not by
 * `<commit>:<path>`: git finds a path by walking its tree's entries, and a
 * `templates/` of 20,000 entries made every lookup a long walk. Null in,
 * null out; an id git does not have is null too.
 */
export async function blobsById(git: Git, ids: readonly (string | null)[]): Promise<Blob[]> {
  const out: Blob[] = ids.map(() => null);
  const asked = ids.flatMap((id, i) => (id === null ? [] : [i]));
  if (asked.length === 0) return out;
  const r = await git.run(['cat-file', '--batch'], { input: asked.map((i) => `${ids[i]}\n`).join('') });
  if (r.code !== 0) throw new GitError(['cat-file', '--batch'], r);
  const buf = r.stdout;
  let pos = 0;
  for (const i of asked) {
    const nl = buf.indexOf(10, pos);
    if (nl === -1) throw new GitError(['cat-file', '--batch'], { ...r, code: 1, stderr: r.stderr || 'its output ended early' });
    // `<oid> <type> <size>`, then the body; `<oid> missing` has none
    const m = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(buf.subarray(pos, nl).toString('utf8'));
    pos = nl + 1;
    if (!m) continue;
    const size = Number(m[2]);
    // a copy, so the round keeps no slice of the whole batch's output alive
    if (m[1] === 'blob') out[i] = Buffer.from(buf.subarray(pos, pos + size));
    pos += size + 1;
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

/** Path → blob id of a tree's files. */
const blobIds = (tree: readonly TreeEntry[]): Map<string, string> => new Map(tree.flatMap((e) => (e.type === 'blob' ? [[e.path, e.id] as const] : [])));

/** The bytes of `path` in `commit`, or null when the commit does not hold it. */
export async function blobAt(git: Git, commit: string | null, path: string): Promise<Blob> {
  if (commit === null) return null;
  try {
    return await git.bytes(['cat-file', 'blob', `${commit}:${path}`]);
  } catch {
    return null;
  }
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
const FILE_MODES = new Set(['100644', '100755']);

/** A folder the service writes its files into: a link or a submodule there would carry its writes elsewhere. */
const isServiceFolder = (p: string): boolean => {
  const parts = p.split('/');
  if (parts.length === 1) return p === TEMPLATES || p === ROLES || p === PROPOSALS;
  if (parts.length === 2) return (parts[0] === TEMPLATES && parts[1] === KEPT_BASES) || (parts[0] === ROLES && isRoleName(parts[1]!));
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
 */
export async function mergeRemote(rc: RoundContext, remote: string, diverged: Diverged): Promise<RoundResult> {
  const { git } = rc;
  const result: RoundResult = { written: { templates: [], roles: [], plain: [] }, touched: { templates: [], roles: [] }, ownFiles: false };
  const head = await revOrNull(rc.git, 'HEAD');
  if (head && (await isAncestor(git, remote, head))) return result;
  const remoteTree = await treeOf(git, remote);
  const bad = hostilePaths(remoteTree);
  if (bad.length) throw new HostileTreeError(remote, bad);
  const base = head ? await mergeBase(git, head, remote) : null;
  const templates = new Set<string>();
  const roles = new Set<string>();
  const plain = new Set<string>();
  for (const p of await changedOnRemote(git, base, remote)) {
    const u = unitOf(p);
    if (u?.kind === 'template') templates.add(u.name);
    else if (u?.kind === 'role') roles.add(u.name);
    else if (u?.kind === 'plain') plain.add(u.path);
  }
  const files = rc.files.round();
  try {
    await decideEach(rc, files, { base, remote, templates, roles, plain, baseIds: blobIds(await treeOf(git, base)), remoteIds: blobIds(remoteTree) }, diverged, result);
  } catch (e) {
    files.abandon(`sync with ${rc.remoteLabel}: stopped early`);
    throw e;
  }
  // nothing of this desk's own since the merge base: HEAD can simply move to the remote's head
  const fastForward = head === null || (!result.ownFiles && (await isAncestor(git, head, remote)));
  files.finish({ message: subject(rc, result, diverged), remote, head, fastForward });
  return result;
}

interface Changed {
  base: string | null;
  remote: string;
  templates: Set<string>;
  roles: Set<string>;
  plain: Set<string>;
  /** path → blob id in each commit */
  baseIds: Map<string, string>;
  remoteIds: Map<string, string>;
}

/** Names read from git per batch: bounds what a round holds at once, whatever its size. */
const CHUNK = 256;

/**
 * Each changed name decided and written in its slot, its files added to the
 * round's commit; `progress` is told after each name. Names are taken a
 * chunk at a time, their sides read by one git process per chunk; every
 * write is file I/O, so the service answers between names.
 */
async function decideEach(rc: RoundContext, files: SyncRound, { base, remote, templates, roles, plain, baseIds, remoteIds }: Changed, diverged: Diverged, result: RoundResult): Promise<void> {
  const { git } = rc;
  const at: DivergedAt = { base, remote };
  const total = plain.size + templates.size + roles.size;
  let done = 0;
  const step = () => {
    rc.progress?.(++done, total);
    // a stop's grace is seconds; a round of thousands of names is minutes: it stops here and the next start goes on
    if (rc.stopping?.()) throw new Error('the service is stopping; the round goes on at the next sync');
  };
  rc.progress?.(0, total);
  const mark = (kind: 'templates' | 'roles', name: string, conflict: boolean) => {
    const had = name in diverged[kind];
    if (conflict) diverged[kind][name] = at;
    else delete diverged[kind][name];
    if (had || conflict) result.touched[kind].push(name);
  };
  /** base and remote sides of each path, for a chunk of names */
  const sides = async (paths: string[]) => {
    const got = await blobsById(git, paths.flatMap((path) => [baseIds.get(path) ?? null, remoteIds.get(path) ?? null]));
    return (i: number) => ({ b: got[2 * i]!, r: got[2 * i + 1]! });
  };
  // kept bases first: a template merged below may name one
  for (const chunk of chunks([...plain].sort())) {
    const side = await sides(chunk);
    for (const [i, path] of chunk.entries()) {
      const { b, r } = side(i);
      const out = await files.plain(path, (local) => mergePlainFile(b, local, r));
      if (out.kind === 'write') result.written.plain.push(path);
      step();
    }
  }
  for (const chunk of chunks([...templates].sort())) {
    const side = await sides(chunk.flatMap((name) => templatePaths(name)));
    for (const [i, name] of chunk.entries()) {
      const [y, m] = [side(2 * i), side(2 * i + 1)];
      const shipped = rc.files.shipped(name);
      const mc = { shippedHash: shipped?.hash ?? null, shippedText: shipped?.text ?? null, valid: (s: string) => rc.files.valid(name, s) };
      const out = await files.template(name, (local) => mergeTemplate({ yaml: y.b, marker: m.b }, local, { yaml: y.r, marker: m.r }, mc));
      if ((out.kind === 'write' && out.how === 'merged') || out.kind === 'conflict') result.ownFiles = true;
      if (out.kind === 'write') result.written.templates.push(name);
      mark('templates', name, out.kind === 'conflict');
      step();
    }
  }
  for (const chunk of chunks([...roles].sort())) {
    const side = await sides(chunk.flatMap((name) => rolePaths(name)));
    for (const [i, name] of chunk.entries()) {
      const [md, kit, marker] = [side(3 * i), side(3 * i + 1), side(3 * i + 2)];
      const b = { role_md: md.b, kit: kit.b, marker: marker.b };
      const r = { role_md: md.r, kit: kit.r, marker: marker.r };
      // a role is small and its kit is JSON: a change on both sides is a conflict, never a line merge
      const out = await files.role(name, (local) => oneSide(b, local, r) ?? { kind: 'conflict', why: 'lines' });
      if (out.kind === 'conflict') result.ownFiles = true;
      if (out.kind === 'write') result.written.roles.push(name);
      mark('roles', name, out.kind === 'conflict');
      step();
    }
  }
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
