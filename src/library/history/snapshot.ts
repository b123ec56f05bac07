import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { isRoleName } from '../../template/names.js';
import { type FsContext, dirSync, readCap, readNoFollowSync, ROLE_FILE_CAP } from '../disk/fs-safe.js';
import { isSha256, KEPT_BASES, keptBase, keptRoleBase, LAUNCHES, PROPOSALS, ROLES, rel, rolePaths, TEMPLATES, templatePaths, unitOf } from '../layout.js';
import { type UnitKey, unitKey, unitOfKey } from '../unit.js';

/**
 * What history records of a name, read from disk synchronously (a few small
 * files: microseconds) so a write's bytes are taken inside its queue slot,
 * before the next write of the name can start. A snapshot maps root-relative
 * paths to their bytes, or null when the file is absent; a path that is odd
 * (a link, a FIFO, a folder, over its cap) is left out: history leaves it as
 * it was committed, as the library leaves such files alone.
 *
 * What is tracked is layout.ts's to say: a name's files (templatePaths,
 * rolePaths), with the kept base its marker names, and the files of no name
 * (unitOf's `plain`).
 */
export type Snapshot = Map<string, Buffer | null>;

export type ObjectFormat = 'sha1' | 'sha256';

/** The id git gives these bytes as a blob, computed here so unchanged files cost no git process. */
export function blobId(bytes: Buffer, format: ObjectFormat): string {
  return createHash(format).update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** A history key: a unit's key (unit.ts), the name's queue slot too. */
export type NameKey = UnitKey;

/** The files a name's write or hand edit may change. */
export function pathsOf(key: NameKey): string[] {
  const { kind, name } = unitOfKey(key);
  return kind === 'template' ? templatePaths(name) : rolePaths(name);
}

/** The name a tracked path belongs to, or null (kept bases and proposal records belong to no one name). */
export function keyOf(path: string): NameKey | null {
  const u = unitOf(path);
  return u === null || u.kind === 'plain' ? null : unitKey(u);
}

/** Reads `paths` (root-relative) into a snapshot; a folder on the way that is a link or not a folder leaves its paths out. */
export function readPaths(fs: FsContext, paths: readonly string[]): Snapshot {
  const out: Snapshot = new Map();
  for (const p of paths) {
    const segs = p.split('/');
    const d = segs.length === 1 ? ({ kind: 'dir', dir: fs.root } as const) : dirSync(fs, segs.slice(0, -1));
    if (d.kind === 'refused') continue;
    if (d.kind === 'missing') {
      out.set(p, null);
      continue;
    }
    const file = `${d.dir}/${segs.at(-1)}`;
    // a proposal or launch record may be as large as the request that made it
    const r = readNoFollowSync(file, p.startsWith(`${PROPOSALS}/`) || p.startsWith(`${LAUNCHES}/`) ? ROLE_FILE_CAP : readCap(file));
    if (r.kind === 'file') out.set(p, r.bytes);
    else if (r.kind === 'missing') out.set(p, null);
  }
  return out;
}

/** A name's files now, with the kept base its template marker names (added when present, never removed: bases are shared). */
export function readName(fs: FsContext, key: NameKey): Snapshot {
  const snap = readPaths(fs, pathsOf(key));
  const role = unitOfKey(key).kind === 'role';
  const marker = snap.get(pathsOf(key)[role ? 2 : 1]!);
  const base = marker?.toString('utf8').split('\n')[0] ?? '';
  if (isSha256(base)) {
    const b = readPaths(fs, [rel(role ? keptRoleBase(base) : keptBase(base))]);
    for (const [p, bytes] of b) if (bytes) snap.set(p, bytes);
  }
  return snap;
}

const names = (fs: FsContext, segs: string[]): string[] => {
  const d = dirSync(fs, segs);
  if (d.kind !== 'dir') return [];
  try {
    return readdirSync(d.dir);
  } catch {
    return [];
  }
};

/** Every tracked file on disk, for the start's comparison with the last commit. */
export function readAll(fs: FsContext): Snapshot {
  const paths: string[] = [];
  const mine = (p: string) => unitOf(p) !== null;
  for (const f of names(fs, [TEMPLATES])) if (mine(`${TEMPLATES}/${f}`)) paths.push(`${TEMPLATES}/${f}`);
  for (const f of names(fs, [TEMPLATES, KEPT_BASES])) if (mine(`${TEMPLATES}/${KEPT_BASES}/${f}`)) paths.push(`${TEMPLATES}/${KEPT_BASES}/${f}`);
  for (const top of [PROPOSALS, LAUNCHES]) for (const f of names(fs, [top])) if (mine(`${top}/${f}`)) paths.push(`${top}/${f}`);
  for (const f of names(fs, [ROLES, KEPT_BASES])) if (mine(`${ROLES}/${KEPT_BASES}/${f}`)) paths.push(`${ROLES}/${KEPT_BASES}/${f}`);
  for (const r of names(fs, [ROLES])) if (isRoleName(r)) paths.push(...rolePaths(r));
  const snap = readPaths(fs, paths);
  for (const [p, b] of snap) if (b === null) snap.delete(p);
  return snap;
}
