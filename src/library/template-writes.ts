import { join } from 'node:path';
import { removeFileDurable, writeFileAtomic } from './atomic-write.js';
import { type FsContext, readNoFollow, safeDir, safeTarget } from './fs-safe.js';
import { formatTemplateIntent, templateIntentFile } from './intents.js';
import { formatMarker, type Marker, sha256Hex } from './markers.js';
import type { ShippedTemplate } from './shipped.js';

/**
 * The file steps of template writes (library-and-api.md §3). Callers hold the
 * name's queue slot, have checked names, state and If-Match, and have
 * resolved any earlier intent of the name. Step names (for the fault hook)
 * are the second argument of each write.
 */

const copyPath = (name: string) => ['templates', `${name}.yaml`];
const markerPath = (name: string) => ['templates', `.${name}.shipped`];
const intentPath = (name: string) => ['templates', templateIntentFile(name)];
const basePath = (hash: string) => ['templates', '.shipped-base', `${hash}.yaml`];

/** Refuses a link at any path the write will touch before the first byte is written, so no intent is left dangling. */
async function precheck(fs: FsContext, name: string): Promise<void> {
  for (const p of [copyPath(name), markerPath(name), intentPath(name)]) await safeTarget(fs, p, true);
}

/** The shipped bytes a copy is saved against, content-addressed, for a later three-way merge. */
export async function keepBase(fs: FsContext, shipped: ShippedTemplate): Promise<void> {
  const target = await safeTarget(fs, basePath(shipped.hash), true);
  const have = target ? await readNoFollow(target.path) : null;
  if (have?.kind === 'file' && sha256Hex(have.bytes) === shipped.hash) return;
  await writeFileAtomic(fs, basePath(shipped.hash), shipped.bytes, 'base');
}

export async function readKeptBase(fs: FsContext, hash: string): Promise<string | null> {
  const dir = await safeDir(fs, ['templates', '.shipped-base'], false);
  if (!dir) return null;
  const r = await readNoFollow(join(dir, `${hash}.yaml`));
  // content-addressed: bytes that no longer hash to their name are not the base
  return r.kind === 'file' && sha256Hex(r.bytes) === hash ? r.bytes.toString('utf8') : null;
}

/**
 * Custom name: the file alone. Shipped name: kept base, intent (the new
 * marker), copy, marker, intent removed. The copy's rename is the commit
 * point: before it the old copy and marker stand; after it the intent rolls
 * the marker forward.
 */
export async function writeTemplateSave(fs: FsContext, name: string, source: string, shipped: ShippedTemplate | null): Promise<Marker | null> {
  const bytes = Buffer.from(source, 'utf8');
  if (!shipped) {
    await writeFileAtomic(fs, copyPath(name), bytes, 'copy');
    return null;
  }
  await precheck(fs, name);
  const marker = { shipped: shipped.hash, copy: sha256Hex(bytes) };
  await keepBase(fs, shipped);
  await writeFileAtomic(fs, intentPath(name), formatTemplateIntent({ op: 'save', marker }), 'intent');
  await writeFileAtomic(fs, copyPath(name), bytes, 'copy');
  await writeFileAtomic(fs, markerPath(name), formatMarker(marker), 'marker');
  await removeFileDurable(fs, intentPath(name), 'intent-remove');
  return marker;
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
