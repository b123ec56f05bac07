import { threeWayMerge } from '../templates/three-way.js';
import { formatMarker, parseMarker, sha256Hex } from '../disk/markers.js';

/**
 * What a sync does with one name (docs/history.md, Sync), decided from three
 * versions of its files: the merge base's, this desk's (on disk now) and the
 * remote's. Pure: the caller reads the versions and writes the outcome.
 *
 * A template is its file and its marker, decided together, because the
 * marker's `copy` line describes the file's bytes:
 *
 * - changed on one side only: that side, file and marker;
 * - changed on both: the files three-way merged (the same node-diff3 merge as
 *   rebase); a merge with a conflict block, or one that does not validate,
 *   or a delete on one side against an edit on the other, is a conflict;
 * - the marker of a merge: its `copy` line follows the merged file, and when
 *   the two markers name different shipped versions (the desks saved against
 *   different releases, or one acknowledged a new one) the one this desk
 *   ships today wins, else this desk's — rebase needs a shipped version this
 *   desk knows.
 */

/** Bytes of one file; null when absent. */
export type Blob = Buffer | null;

export interface TemplateSide {
  yaml: Blob;
  marker: Blob;
}

export type Outcome<S> =
  /** nothing to write: this desk's files stand */
  | { kind: 'keep' }
  /** write these files (null: remove) */
  | { kind: 'write'; files: S; how: 'theirs' | 'merged' }
  /**
   * this desk's files stand and the name is diverged: both sides changed and
   * could not be merged (`lines`, `deleted` against an edit), or the remote's
   * version is not taken — it does not validate, is over the size cap, or
   * git cannot read it
   */
  | { kind: 'conflict'; why: 'lines' | 'invalid' | 'deleted' | 'too_large' | 'unreadable' };

export const same = (a: Blob, b: Blob): boolean => (a === null || b === null ? a === b : a.equals(b));

function sameSide<S extends object>(a: S, b: S): boolean {
  return Object.keys(a).every((k) => same(a[k as keyof S] as Blob, b[k as keyof S] as Blob));
}

/**
 * The one-side rules, shared by every kind of unit: untouched on the remote
 * keeps this desk's; untouched here takes the remote's; the same change on
 * both keeps it. Null: both changed, differently.
 */
export function oneSide<S extends object>(base: S, local: S, remote: S): Outcome<S> | null {
  if (sameSide(remote, base) || sameSide(local, remote)) return { kind: 'keep' };
  if (sameSide(local, base)) return { kind: 'write', files: remote, how: 'theirs' };
  return null;
}

/** A file both sides may have added or changed, decided alone; a real difference keeps this desk's bytes. */
export function mergePlainFile(base: Blob, local: Blob, remote: Blob): Outcome<{ file: Blob }> {
  return oneSide({ file: base }, { file: local }, { file: remote }) ?? { kind: 'keep' };
}

function chooseMarker(base: Blob, local: Blob, remote: Blob, shippedHash: string | null): Blob {
  if (same(local, remote) || same(remote, base)) return local;
  if (same(local, base)) return remote;
  const l = local && parseMarker(local.toString('utf8'));
  const r = remote && parseMarker(remote.toString('utf8'));
  if (r && shippedHash && r.shipped === shippedHash && l?.shipped !== shippedHash) return remote;
  return local ?? remote;
}

export interface TemplateMergeContext {
  /** this desk's shipped sha256 for the name, or null when it ships none */
  shippedHash: string | null;
  /** and its bytes */
  shippedText: string | null;
  /** the one validator against today's catalogue */
  valid: (source: string) => boolean;
}

export function mergeTemplate(base: TemplateSide, local: TemplateSide, remote: TemplateSide, ctx: TemplateMergeContext): Outcome<TemplateSide> {
  const plain = oneSide(base, local, remote);
  // the remote's version is validated before it is taken: one that does not validate leaves this desk's copy standing
  if (plain?.kind === 'write' && remote.yaml !== null && !ctx.valid(remote.yaml.toString('utf8'))) return { kind: 'conflict', why: 'invalid' };
  if (plain) return plain;
  const marker = chooseMarker(base.marker, local.marker, remote.marker, ctx.shippedHash);
  // the file is one side's: the chosen marker's shipped line, that side's copy line
  const keepFile = same(local.yaml, remote.yaml) || same(remote.yaml, base.yaml);
  if (keepFile || same(local.yaml, base.yaml)) {
    const side = keepFile ? local : remote;
    const files = { yaml: side.yaml, marker: compose(marker, side.marker) };
    return sameSide(files, local) ? { kind: 'keep' } : { kind: 'write', files, how: 'merged' };
  }
  // no copy of a shipped name is its shipped bytes: that is what loaded on that side
  const text = (b: Blob) => b?.toString('utf8') ?? ctx.shippedText;
  const [l, o, r] = [text(local.yaml), text(base.yaml) ?? '', text(remote.yaml)];
  if (l === null || r === null) return { kind: 'conflict', why: 'deleted' };
  const m = threeWayMerge(l, o, r);
  if (m.conflicts > 0) return { kind: 'conflict', why: 'lines' };
  if (!ctx.valid(m.merged)) return { kind: 'conflict', why: 'invalid' };
  const yaml = Buffer.from(m.merged, 'utf8');
  return { kind: 'write', files: { yaml, marker: markerFor(marker, yaml) }, how: 'merged' };
}

/** `chosen`'s shipped line with `copyFrom`'s copy line: the copy line describes the file it travels with. */
function compose(chosen: Blob, copyFrom: Blob): Blob {
  const c = chosen && parseMarker(chosen.toString('utf8'));
  if (!c) return chosen;
  const f = copyFrom && parseMarker(copyFrom.toString('utf8'));
  return Buffer.from(formatMarker(f?.copy !== undefined ? { shipped: c.shipped, copy: f.copy } : { shipped: c.shipped }));
}

/** A merge is written by the service: its marker's `copy` line is the merged bytes' hash. */
function markerFor(marker: Blob, yaml: Buffer): Blob {
  const m = marker && parseMarker(marker.toString('utf8'));
  return m ? Buffer.from(formatMarker({ shipped: m.shipped, copy: sha256Hex(yaml) })) : null;
}
