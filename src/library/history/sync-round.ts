import type { SyncFiles, SyncRound } from './sync-contract.js';
import { rolePaths, templatePaths, unitOf } from '../layout.js';
import type { Git } from './git.js';
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
}

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

export async function mergeRemote(rc: RoundContext, remote: string, diverged: Diverged): Promise<RoundResult> {
  const { git } = rc;
  const result: RoundResult = { written: { templates: [], roles: [], plain: [] }, touched: { templates: [], roles: [] }, ownFiles: false };
  const head = await revOrNull(rc.git, 'HEAD');
  if (head && (await isAncestor(git, remote, head))) return result;
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
    await decideEach(rc, files, { base, remote, templates, roles, plain }, diverged, result);
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
}

/** Each changed name decided and written in its slot, its files added to the round's commit. */
async function decideEach(rc: RoundContext, files: SyncRound, { base, remote, templates, roles, plain }: Changed, diverged: Diverged, result: RoundResult): Promise<void> {
  const { git } = rc;
  const at: DivergedAt = { base, remote };
  const mark = (kind: 'templates' | 'roles', name: string, conflict: boolean) => {
    const had = name in diverged[kind];
    if (conflict) diverged[kind][name] = at;
    else delete diverged[kind][name];
    if (had || conflict) result.touched[kind].push(name);
  };
  // kept bases first: a template merged below may name one
  for (const path of [...plain].sort()) {
    const [b, r] = [await blobAt(git, base, path), await blobAt(git, remote, path)];
    const out = await files.plain(path, (local) => mergePlainFile(b, local, r));
    if (out.kind === 'write') result.written.plain.push(path);
  }
  for (const name of [...templates].sort()) {
    const [yp, mp] = templatePaths(name);
    const b = { yaml: await blobAt(git, base, yp), marker: await blobAt(git, base, mp) };
    const r = { yaml: await blobAt(git, remote, yp), marker: await blobAt(git, remote, mp) };
    const shipped = rc.files.shipped(name);
    const mc = { shippedHash: shipped?.hash ?? null, shippedText: shipped?.text ?? null, valid: (s: string) => rc.files.valid(name, s) };
    const out = await files.template(name, (local) => mergeTemplate(b, local, r, mc));
    if ((out.kind === 'write' && out.how === 'merged') || out.kind === 'conflict') result.ownFiles = true;
    if (out.kind === 'write') result.written.templates.push(name);
    mark('templates', name, out.kind === 'conflict');
  }
  for (const name of [...roles].sort()) {
    const rp = rolePaths(name);
    const side = async (c: string | null) => ({ role_md: await blobAt(git, c, rp[0]), kit: await blobAt(git, c, rp[1]), marker: await blobAt(git, c, rp[2]) });
    const [b, r] = [await side(base), await side(remote)];
    // a role is small and its kit is JSON: a change on both sides is a conflict, never a line merge
    const out = await files.role(name, (local) => oneSide(b, local, r) ?? { kind: 'conflict', why: 'lines' });
    if (out.kind === 'conflict') result.ownFiles = true;
    if (out.kind === 'write') result.written.roles.push(name);
    mark('roles', name, out.kind === 'conflict');
  }
}

function subject(rc: RoundContext, r: RoundResult, diverged: Diverged): string {
  const names = [...r.written.templates, ...r.written.roles.map((n) => `role ${n}`)];
  const left = [...Object.keys(diverged.templates), ...Object.keys(diverged.roles).map((n) => `role ${n}`)];
  const took = names.length ? `: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}` : '';
  return `sync with ${rc.remoteLabel}${took}${left.length ? ` (diverged: ${left.join(', ')})` : ''}`;
}
