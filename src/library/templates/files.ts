import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { discardTemp, flushDir, removeFileDurable, renameTemp, writeFileAtomic, writeInPlace, writeTemp } from '../disk/atomic-write.js';
import { type FsContext, fault, lstatOrNull, mapFsError, readNoFollow, readNoFollowSync, safeDir, safeDirSync, safeTarget } from '../disk/fs-safe.js';
import { formatTemplateIntent, templateIntentFile } from '../disk/intents.js';
import { formatMarker, type Marker, parseMarker, sha256Hex } from '../disk/markers.js';
import { KEPT_BASES, keptBase, TEMPLATES, templateCopy, templateIntent, templateMarker } from '../layout.js';
import type { ShippedTemplate } from '../shipped.js';

/**
 * The file steps of template writes (docs/operations.md, The library root on disk). Callers hold the
 * name's queue slot, have checked names, state and If-Match, and have
 * resolved any earlier intent of the name. Step names (for the fault hook)
 * are the second argument of each write.
 */

const copyPath = templateCopy;
const markerPath = templateMarker;
const intentPath = templateIntent;
const basePath = keptBase;

/** Refuses a link at any path the write will touch before the first byte is written, so no intent is left dangling. */
async function precheck(fs: FsContext, name: string): Promise<void> {
  for (const p of [copyPath(name), markerPath(name), intentPath(name)]) await safeTarget(fs, p, true);
}

/**
 * The shipped bytes a copy is saved against, content-addressed, for a later
 * three-way merge. Written only when absent: a file of the right size under
 * its hash is taken as kept (readKeptBase checks the hash when it is used,
 * and a damaged one of another size is written again here).
 */
export async function keepBase(fs: FsContext, shipped: ShippedTemplate): Promise<void> {
  const target = await safeTarget(fs, basePath(shipped.hash), true);
  const have = target ? await lstatOrNull(target.path) : null;
  if (have?.isFile() && have.size === BigInt(shipped.bytes.length)) return;
  await writeFileAtomic(fs, basePath(shipped.hash), shipped.bytes, 'base');
}

export async function readKeptBase(fs: FsContext, hash: string): Promise<string | null> {
  // a read: a linked or odd `.shipped-base` is no kept base (reported once, fs-safe.ts), never a refusal
  const dir = safeDirSync(fs, [TEMPLATES, KEPT_BASES])?.dir ?? null;
  if (!dir) return null;
  const r = await readNoFollow(join(dir, `${hash}.yaml`));
  // content-addressed: bytes that no longer hash to their name are not the base
  return r.kind === 'file' && sha256Hex(r.bytes) === hash ? r.bytes.toString('utf8') : null;
}

/** What stands before a save: the copy's hash and the marker, as the intent records them. */
function standing(dir: string, name: string): { copy: string | null; marker: Marker | null } {
  // two small local files: read synchronously, in microseconds (fs-safe.ts)
  const copy = readNoFollowSync(join(dir, `${name}.yaml`));
  const marker = readNoFollowSync(join(dir, `.${name}.shipped`));
  return {
    copy: copy.kind === 'file' ? sha256Hex(copy.bytes) : null,
    marker: marker.kind === 'file' ? parseMarker(marker.bytes.toString('utf8')) : null,
  };
}

/** Runs steps side by side and waits for all of them, so none is still running when one has failed. */
async function allOrFail<T extends unknown[]>(steps: { [K in keyof T]: Promise<T[K]> }, onFail: (done: unknown[]) => Promise<void>): Promise<T> {
  const settled = await Promise.allSettled(steps);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await onFail(settled.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<unknown>).value));
    throw failed.reason;
  }
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as T;
}

/**
 * Custom name: the file alone (temp, fsync, rename, folder fsync). Shipped
 * name, with three flushes where a bare durable write has two:
 *
 * 0. the kept base, only when absent, before the intent names it;
 * 1. side by side: the intent (new marker, and the copy and marker that
 *    stand now) written in place and flushed — it carries a checksum, so a
 *    torn one counts as none — and the copy and the marker each as a flushed
 *    temp file;
 * 2. the folder flushed: the intent is on disk before anything is renamed;
 * 3. the copy renamed over the old (the commit point), then the marker; the
 *    folder flushed once for both. Whatever subset of the two renames a
 *    crash keeps, the intent says which marker is true (intentMarker);
 * 4. the intent removed. Its removal is not flushed: an intent that comes
 *    back after a crash finds its copy landed and rolls the same marker
 *    forward, or finds the copy changed since and leaves it be.
 */
export async function writeTemplateSave(fs: FsContext, name: string, source: string, shipped: ShippedTemplate | null, given?: Marker & { copy: string }): Promise<Marker | null> {
  const bytes = Buffer.from(source, 'utf8');
  if (!shipped) {
    await writeFileAtomic(fs, copyPath(name), bytes, 'copy');
    return null;
  }
  await precheck(fs, name);
  const dir = (await safeDir(fs, [TEMPLATES], true))!;
  // a sync writes the marker that came with the file (history/sync-files.ts); its copy line must be the bytes' hash
  const marker = given ?? { shipped: shipped.hash, copy: sha256Hex(bytes) };
  const was = standing(dir, name);
  const intentFile = join(dir, templateIntentFile(name));
  const discard = async (temps: unknown[]) => {
    for (const t of temps) if (typeof t === 'string') await discardTemp(fs, t, 'save');
  };
  // the base first, before the intent can name it: a save of the bytes already on
  // disk finds its copy "landed" at once, and recovery rolls its marker forward
  // even when a crash came before anything was renamed (usually one lstat)
  await keepBase(fs, shipped);
  const [, copyTmp, markerTmp] = await allOrFail<[unknown, string, string]>(
    [
      writeInPlace(fs, intentFile, formatTemplateIntent({ op: 'save', marker, was }), 'intent'),
      writeTemp(fs, dir, `${name}.yaml`, bytes, 'copy'),
      writeTemp(fs, dir, `.${name}.shipped`, formatMarker(marker), 'marker'),
    ],
    discard,
  );
  try {
    await flushDir(fs, dir, 'intent:fsync-dir');
  } catch (e) {
    await discard([copyTmp, markerTmp]);
    throw e;
  }
  try {
    await renameTemp(fs, copyTmp, join(dir, `${name}.yaml`), 'copy');
  } catch (e) {
    await discard([markerTmp]);
    throw e;
  }
  await renameTemp(fs, markerTmp, join(dir, `.${name}.shipped`), 'marker');
  await flushDir(fs, dir, 'renames:fsync-dir');
  await removeIntent(fs, intentFile);
  return marker;
}

async function removeIntent(fs: FsContext, path: string): Promise<void> {
  await fault(fs, 'intent-remove:unlink');
  await unlink(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw mapFsError(e);
  });
}

/** Two files go, so the decision is written first: a `reset` intent that recovery finishes. */
export async function writeTemplateReset(fs: FsContext, name: string): Promise<void> {
  await precheck(fs, name);
  await writeFileAtomic(fs, intentPath(name), formatTemplateIntent({ op: 'reset' }), 'intent');
  await removeFileDurable(fs, copyPath(name), 'copy-remove');
  await removeFileDurable(fs, markerPath(name), 'marker-remove');
  await removeFileDurable(fs, intentPath(name), 'intent-remove');
}

/** One atomic marker rewrite: line 1 moves to today's shipped hash, the copy line stays as it was. */
export async function writeTemplateAcknowledge(fs: FsContext, name: string, shipped: ShippedTemplate, old: Marker): Promise<Marker> {
  await precheck(fs, name);
  const marker: Marker = old.copy === undefined ? { shipped: shipped.hash } : { shipped: shipped.hash, copy: old.copy };
  await keepBase(fs, shipped);
  await writeFileAtomic(fs, markerPath(name), formatMarker(marker), 'marker');
  return marker;
}

/** A custom template: its file, and any marker left from a shipped template of that name that was withdrawn. */
export async function writeTemplateDelete(fs: FsContext, name: string): Promise<void> {
  await precheck(fs, name);
  await removeFileDurable(fs, copyPath(name), 'copy-remove');
  await removeFileDurable(fs, markerPath(name), 'marker-remove');
}
