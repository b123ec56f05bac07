/**
 * An upgrade's template saves, batched (docs/operations.md, Upgrading): the
 * files and intent of a save (templates/files.ts writeTemplateSave), in two
 * halves, so a hundred copies cost a few folder flushes where a hundred
 * saves cost two hundred, and each copy's file flushes overlap the next
 * copy's merge.
 *
 * - prepare, inside the name's slot and not waited for: the kept base, when
 *   absent, as a flushed temp file renamed into place (content-addressed:
 *   there early is harmless); then side by side the intent (new marker, and
 *   the copy and marker that stand) written in place and flushed, and the
 *   copy and the marker each as a flushed temp file.
 * - land, every slot of the batch held: each preparation waited for; the
 *   kept bases' folder flushed, then the templates folder (every intent on
 *   disk before any rename); each copy renamed over its old one, then its
 *   marker; the folder flushed once for all; the intents removed.
 *
 * Each copy stays all-or-nothing as a save is: whatever a crash keeps of its
 * renames, its intent says which marker is true, and recovery rolls it
 * forward or back (disk/recovery.ts). A copy whose step fails is reported,
 * and the caller resolves its intent; the others land.
 */
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { discardTemp, flushDir, renameTemp, writeInPlace, writeTemp } from '../disk/atomic-write.js';
import { type FsContext, fault, lstatOrNull, mapFsError, readNoFollowSync, safeDir, safeTarget } from '../disk/fs-safe.js';
import { formatTemplateIntent, templateIntentFile } from '../disk/intents.js';
import { formatMarker, type Marker, parseMarker, sha256Hex } from '../disk/markers.js';
import { keptBase, TEMPLATES, templateCopy, templateIntent, templateMarker } from '../layout.js';
import type { ShippedTemplate } from '../shipped.js';

interface Temps {
  dir: string;
  copy: string;
  marker: string;
  /** the kept bases' folder, when this copy wrote its base */
  baseDir: string | null;
}

export interface Prepared {
  name: string;
  /** settles once the copy's files are flushed under temp names: the temps, or why not */
  ready: Promise<Temps | { failed: unknown }>;
}

/** What stands before the save, as the intent records it: the copy's hash and the marker. */
function standing(dir: string, name: string): { copy: string | null; marker: Marker | null } {
  const copy = readNoFollowSync(join(dir, `${name}.yaml`));
  const marker = readNoFollowSync(join(dir, `.${name}.shipped`));
  return { copy: copy.kind === 'file' ? sha256Hex(copy.bytes) : null, marker: marker.kind === 'file' ? parseMarker(marker.bytes.toString('utf8')) : null };
}

async function prepareFiles(fs: FsContext, name: string, source: string, shipped: ShippedTemplate): Promise<Temps> {
  // a link at any path the save touches is refused before the first byte is written
  for (const p of [templateCopy(name), templateMarker(name), templateIntent(name)]) await safeTarget(fs, p, true);
  const dir = (await safeDir(fs, [TEMPLATES], true))!;
  const bytes = Buffer.from(source, 'utf8');
  const marker = { shipped: shipped.hash, copy: sha256Hex(bytes) };
  const was = standing(dir, name);
  let baseDir: string | null = null;
  // the base before the intent names it (templates/files.ts keepBase): written only when absent
  const base = (await safeTarget(fs, keptBase(shipped.hash), true))!;
  const have = await lstatOrNull(base.path);
  if (!(have?.isFile() && have.size === BigInt(shipped.bytes.length))) {
    await renameTemp(fs, await writeTemp(fs, base.dir, `${shipped.hash}.yaml`, shipped.bytes, 'base'), base.path, 'base');
    baseDir = base.dir;
  }
  const steps = [
    writeInPlace(fs, join(dir, templateIntentFile(name)), formatTemplateIntent({ op: 'save', marker, was }), 'intent'),
    writeTemp(fs, dir, `${name}.yaml`, bytes, 'copy'),
    writeTemp(fs, dir, `.${name}.shipped`, formatMarker(marker), 'marker'),
  ] as const;
  // all three waited for, so none is still running when one has failed
  const settled = await Promise.allSettled(steps);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    for (const r of settled.slice(1)) if (r.status === 'fulfilled') await discardTemp(fs, r.value as string, 'save');
    throw failed.reason;
  }
  const [, copyTmp, markerTmp] = settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [unknown, string, string];
  return { dir, copy: copyTmp, marker: markerTmp, baseDir };
}

/** Starts a copy's first half; the caller goes on to the next name and lands them all. */
export function prepareSave(fs: FsContext, name: string, source: string, shipped: ShippedTemplate): Prepared {
  return { name, ready: prepareFiles(fs, name, source, shipped).catch((e: unknown) => ({ failed: e })) };
}

/** The second half for every prepared copy: the names whose steps failed, with why (their intents are the caller's to resolve). */
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
  // not flushed, as a save's: an intent that comes back finds its copy landed and rolls the same marker forward
  const removeIntent = async ([name, t]: [string, Temps]) => {
    try {
      await fault(fs, 'intent-remove:unlink');
      await unlink(join(t.dir, templateIntentFile(name))).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw mapFsError(e);
      });
    } catch (e) {
      failed.set(name, e);
    }
  };
  await Promise.all(renamed.map(removeIntent));
  return failed;
}
