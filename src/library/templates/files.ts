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
 * and a damaged one of another size is written again here). `flush` false
 * (an upgrade's batch): renamed into place but its folder not flushed; the
 * answer is that folder, for the batch to flush once before any intent.
 */
export async function keepBase(fs: FsContext, shipped: ShippedTemplate, flush = true): Promise<string | null> {
  const target = await safeTarget(fs, basePath(shipped.hash), true);
  const have = target ? await lstatOrNull(target.path) : null;
  if (have?.isFile() && have.size === BigInt(shipped.bytes.length)) return null;
  if (flush || !target) {
    await writeFileAtomic(fs, basePath(shipped.hash), shipped.bytes, 'base');
    return null;
  }
  await renameTemp(fs, await writeTemp(fs, target.dir, `${shipped.hash}.yaml`, shipped.bytes, 'base'), target.path, 'base');
  return target.dir;
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
 *
 * Steps 0 and 1 are `prepareSave`, 2 to 4 `landSaves`: a save is a batch of
 * one, and an upgrade's batch (upgrade/apply.ts) prepares each copy in its
 * slot and lands them all together, so a hundred copies cost a few folder
 * flushes where a hundred saves cost two hundred.
 */
export async function writeTemplateSave(fs: FsContext, name: string, source: string, shipped: ShippedTemplate | null, given?: Marker & { copy: string }): Promise<void> {
  const bytes = Buffer.from(source, 'utf8');
  if (!shipped) {
    await writeFileAtomic(fs, copyPath(name), bytes, 'copy');
    return;
  }
  // the base first and flushed, before the intent can name it: a save of the bytes already on
  // disk finds its copy "landed" at once, and recovery rolls its marker forward
  // even when a crash came before anything was renamed (usually one lstat)
  const failed = await landSaves(fs, [prepareSave(fs, name, source, shipped, { given, baseFlushed: true })]);
  if (failed.has(name)) throw failed.get(name);
}

/** A save's temp files, ready to land. */
interface Temps {
  dir: string;
  copy: string;
  marker: string;
  /** the kept bases' folder, when this copy wrote its base and left the folder to the landing's flush */
  baseDir: string | null;
}

export interface Prepared {
  name: string;
  /** settles once the copy's files are flushed under temp names: the temps, or why not */
  ready: Promise<Temps | { failed: unknown }>;
}

interface PrepareOptions {
  /** a sync writes the marker that came with the file (sync/files.ts); its copy line must be the bytes' hash */
  given?: Marker & { copy: string } | undefined;
  /** the base flushed before the intent is written (a lone save); else the landing flushes its folder once (a batch) */
  baseFlushed: boolean;
}

async function prepareFiles(fs: FsContext, name: string, source: string, shipped: ShippedTemplate, o: PrepareOptions): Promise<Temps> {
  await precheck(fs, name);
  const dir = (await safeDir(fs, [TEMPLATES], true))!;
  const bytes = Buffer.from(source, 'utf8');
  const marker = o.given ?? { shipped: shipped.hash, copy: sha256Hex(bytes) };
  const was = standing(dir, name);
  const baseDir = await keepBase(fs, shipped, o.baseFlushed);
  const discard = async (temps: unknown[]) => {
    for (const t of temps) if (typeof t === 'string') await discardTemp(fs, t, 'save');
  };
  const [, copy, markerTmp] = await allOrFail<[unknown, string, string]>(
    [
      writeInPlace(fs, join(dir, templateIntentFile(name)), formatTemplateIntent({ op: 'save', marker, was }), 'intent'),
      writeTemp(fs, dir, `${name}.yaml`, bytes, 'copy'),
      writeTemp(fs, dir, `.${name}.shipped`, formatMarker(marker), 'marker'),
    ],
    discard,
  );
  return { dir, copy, marker: markerTmp, baseDir };
}

/** Starts a copy's first half (steps 0 and 1); the caller may go on to the next name and land them all. */
export function prepareSave(fs: FsContext, name: string, source: string, shipped: ShippedTemplate, o: PrepareOptions = { baseFlushed: false }): Prepared {
  return { name, ready: prepareFiles(fs, name, source, shipped, o).catch((e: unknown) => ({ failed: e })) };
}

/**
 * The second half (steps 2 to 4) for every prepared copy: the names whose
 * steps failed, with why; their intents are the caller's to resolve
 * (door.ts settle). Each copy stays all-or-nothing: whatever a crash keeps
 * of its renames, its intent says which marker is true.
 */
export async function landSaves(fs: FsContext, batch: readonly Prepared[]): Promise<Map<string, unknown>> {
  const failed = new Map<string, unknown>();
  const ok: [string, Temps][] = [];
  for (const p of batch) {
    const r = await p.ready;
    if ('failed' in r) failed.set(p.name, r.failed);
    else ok.push([p.name, r]);
  }
  const discard = async (list: [string, Temps][], why: unknown, which: 'both' | 'marker' = 'both') => {
    for (const [name, t] of list) {
      if (which === 'both') await discardTemp(fs, t.copy, 'save');
      await discardTemp(fs, t.marker, 'save');
      failed.set(name, why);
    }
  };
  try {
    for (const d of new Set(ok.map(([, t]) => t.baseDir).filter((d) => d !== null))) await flushDir(fs, d, 'base:fsync-dir');
    for (const d of new Set(ok.map(([, t]) => t.dir))) await flushDir(fs, d, 'intent:fsync-dir');
  } catch (e) {
    await discard(ok, e);
    return failed;
  }
  const renamed: [string, Temps][] = [];
  // each copy's two renames in order (the copy is the commit point), the copies side by side
  const renameOne = async (entry: [string, Temps]) => {
    const [name, t] = entry;
    try {
      await renameTemp(fs, t.copy, join(t.dir, `${name}.yaml`), 'copy');
    } catch (e) {
      await discard([entry], e, 'marker');
      return;
    }
    try {
      await renameTemp(fs, t.marker, join(t.dir, `.${name}.shipped`), 'marker');
      renamed.push(entry);
    } catch (e) {
      failed.set(name, e);
    }
  };
  await Promise.all(ok.map(renameOne));
  try {
    for (const d of new Set(renamed.map(([, t]) => t.dir))) await flushDir(fs, d, 'renames:fsync-dir');
  } catch (e) {
    for (const [name] of renamed) failed.set(name, e);
    return failed;
  }
  const removeOne = async ([name, t]: [string, Temps]) => {
    try {
      await removeIntent(fs, join(t.dir, templateIntentFile(name)));
    } catch (e) {
      failed.set(name, e);
    }
  };
  await Promise.all(renamed.map(removeOne));
  return failed;
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
