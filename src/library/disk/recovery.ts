import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DeskError } from '../../errors.js';
import { isRoleName, isTemplateName } from '../../template/names.js';
import { removeFileDurable, removeTreeDurable, TEMP_PREFIX, writeFileAtomic } from './atomic-write.js';
import { type FsContext, fault, lstatSyncOrNull, oddType, overCap, type ReadOutcome, readCap, readNoFollow, reportOdd, safeDir, safeDirSync } from './fs-safe.js';
import { KEPT_BASES, ROLES, roleDir, roleFile, roleIntent, TEMPLATES, templateCopy, templateIntent, templateMarker } from '../layout.js';
import { intentMarker, parseRoleIntent, parseTemplateIntent, roleIntentFile, type RoleIntent, templateIntentFile } from './intents.js';
import { formatMarker, parseMarker, sha256Hex } from './markers.js';

/**
 * Applies intents left by a write that did not finish (intents.ts), for one
 * name or, at open, for the whole root — and removes leftover temp files.
 * Every step goes through the fault hook too, so a simulated crash also stops
 * the in-process recovery that a failed write attempts.
 *
 * A file placed by hand on the way — an intent, or a copy or marker the
 * intent's decision rests on, that is a link, a folder, a FIFO or over its
 * cap (fs-safe.ts) — stops recovery of that one name: it is reported and
 * left alone, never removed or moved aside. The library never deletes what it
 * did not write, and cannot on a read-only root; readers never believe a
 * non-regular intent, and apply a readable one virtually as ever; a write of
 * that name is refused, naming the path, until the operator removes it.
 */

/** What recovering one name did: nothing was pending, it finished, or it was left alone (reported). */
export type Recovered = 'none' | 'done' | 'skipped';

/** Why a read that found something cannot be used, or null when it is a file or nothing. */
function oddReason(r: ReadOutcome): string | null {
  if (r.kind === 'unreadable') return r.reason;
  if (r.kind === 'too_large') return overCap(r.size);
  return null;
}

/** Reports the first of `reads` that is odd; true when one was. */
function skipOdd(fs: FsContext, folder: string, reads: [string, ReadOutcome][]): boolean {
  for (const [file, r] of reads) {
    const why = oddReason(r);
    if (why !== null) {
      reportOdd(fs, `${folder}/${file}`, why);
      return true;
    }
  }
  return false;
}

/** Before a write of the name: any intent resolved, or left (reported) for the write's precheck to refuse. */
export async function recoverTemplate(fs: FsContext, name: string): Promise<void> {
  await templateRecovery(fs, name);
}

async function templateRecovery(fs: FsContext, name: string): Promise<Recovered> {
  const dir = await safeDir(fs, [TEMPLATES], false);
  if (!dir) return 'none';
  const intentFile = templateIntentFile(name);
  // the common case, no intent: one synchronous lstat, not a promise open's round trip
  if (lstatSyncOrNull(join(dir, intentFile)) === null) return 'none';
  const r = await readNoFollow(join(dir, intentFile));
  if (r.kind === 'missing') return 'none';
  if (r.kind !== 'file') return skipOdd(fs, TEMPLATES, [[intentFile, r]]) ? 'skipped' : 'none';
  const intent = parseTemplateIntent(r.bytes.toString('utf8'));
  if (intent?.op === 'reset') {
    await removeFileDurable(fs, templateCopy(name), 'recover:copy-remove');
    await removeFileDurable(fs, templateMarker(name), 'recover:marker-remove');
  } else if (intent?.op === 'save') {
    const [copyFile, markerFile] = [templateCopy(name).at(-1)!, templateMarker(name).at(-1)!];
    const copy = await readNoFollow(join(dir, copyFile));
    const onDisk = await readNoFollow(join(dir, markerFile));
    if (skipOdd(fs, TEMPLATES, [[copyFile, copy], [markerFile, onDisk]])) return 'skipped';
    // the copy landed: its marker rolls forward; it did not: the old marker stands, or comes back
    const m = intentMarker(intent, copy.kind === 'file' ? sha256Hex(copy.bytes) : null, onDisk.kind === 'file' ? parseMarker(onDisk.bytes.toString('utf8')) : null);
    if (m === null) await removeFileDurable(fs, templateMarker(name), 'recover:marker-remove');
    else if (m !== undefined) await writeFileAtomic(fs, templateMarker(name), formatMarker(m), 'recover:marker');
  }
  await removeFileDurable(fs, templateIntent(name), 'recover:intent-remove');
  return 'done';
}

/** Writes a role save's files from its intent; also the normal path of a save. */
export async function applyRoleSave(fs: FsContext, name: string, i: Extract<RoleIntent, { op: 'save' }>, prefix = ''): Promise<void> {
  await writeFileAtomic(fs, roleFile(name, 'role.md'), i.role_md, `${prefix}role-md`);
  if (i.kit === null) await removeFileDurable(fs, roleFile(name, 'kit.json'), `${prefix}kit-remove`);
  else await writeFileAtomic(fs, roleFile(name, 'kit.json'), i.kit, `${prefix}kit`);
  if (i.marker === null) await removeFileDurable(fs, roleFile(name, '.shipped'), `${prefix}marker-remove`);
  else await writeFileAtomic(fs, roleFile(name, '.shipped'), i.marker, `${prefix}marker`);
}

export async function recoverRole(fs: FsContext, name: string): Promise<void> {
  await roleRecovery(fs, name);
}

async function roleRecovery(fs: FsContext, name: string): Promise<Recovered> {
  const dir = await safeDir(fs, [ROLES], false);
  if (!dir) return 'none';
  const intentFile = roleIntentFile(name);
  const r = await readNoFollow(join(dir, intentFile));
  if (r.kind === 'missing') return 'none';
  if (r.kind !== 'file') return skipOdd(fs, ROLES, [[intentFile, r]]) ? 'skipped' : 'none';
  const intent = parseRoleIntent(r.bytes.toString('utf8'));
  if (intent?.op === 'reset') await removeTreeDurable(fs, roleDir(name), 'recover:folder-remove');
  else if (intent?.op === 'save') await applyRoleSave(fs, name, intent, 'recover:');
  await removeFileDurable(fs, roleIntent(name), 'recover:intent-remove');
  return 'done';
}

async function listDir(dir: string | null): Promise<import('node:fs').Dirent[]> {
  return dir ? readdir(dir, { withFileTypes: true }) : [];
}

/** Marker and kept-base names in a folder the sweep looks at; intents are recovery's to read. */
const BOOKKEEPING: Record<string, RegExp> = {
  templates: /^\..+\.shipped$/,
  '.shipped-base': /^[0-9a-f]{64}\.yaml$/,
  'role-base': /^[0-9a-f]{64}\.json$/,
  role: /^\.shipped$/,
};

/**
 * Removes the folder's leftover temp files, and reports (once, through
 * `report`) each marker or kept base there that reads will skip — not a
 * regular file, or over its cap — so a skip at every request is said once at
 * start. `kind` picks the names (BOOKKEEPING).
 */
async function sweep(fs: FsContext, segs: string[], kind: keyof typeof BOOKKEEPING): Promise<void> {
  const dir = await safeDir(fs, segs, false).catch(() => null);
  for (const d of await listDir(dir)) {
    if (d.isFile() && d.name.startsWith(TEMP_PREFIX)) await removeFileDurable(fs, [...segs, d.name], 'recover:tmp-remove');
    else if (BOOKKEEPING[kind]!.test(d.name)) {
      const path = [...segs, d.name].join('/');
      const odd = oddType(d);
      if (odd !== null) reportOdd(fs, path, odd);
      else {
        const size = lstatSyncOrNull(join(dir!, d.name))?.size ?? 0n;
        if (size > BigInt(readCap(d.name))) reportOdd(fs, path, overCap(size));
      }
    }
  }
}

/** The name an intent file belongs to: layout.ts names it, and only a name it would give back is taken. */
const INTENT = /^\.(.+)\.intent$/;

/**
 * One name's recovery at open. A refusal on its way (a link or an odd file
 * where a step would write: DeskError from safeTarget) leaves that name as
 * it is, reported, and the others are still recovered — readers apply its
 * intent virtually, and the next start tries again. Anything else (the
 * crash the fault hook simulates) stops the open as before.
 */
async function recoverAtOpen(fs: FsContext, folder: string, intentFile: string, recover: () => Promise<Recovered>): Promise<boolean> {
  try {
    return (await recover()) === 'done';
  } catch (e) {
    if (!(e instanceof DeskError)) throw e;
    reportOdd(fs, `${folder}/${intentFile}`, `left for the next start: ${e.message}`);
    return false;
  }
}

/** At open: every intent applied or discarded, every temp file gone, odd bookkeeping files reported. Returns what it did, for the log. */
export async function recoverRoot(fs: FsContext): Promise<{ templates: string[]; roles: string[] }> {
  await fault(fs, 'recover:start');
  const done = { templates: [] as string[], roles: [] as string[] };
  // a linked (or otherwise odd) folder is not recovered into: reported, and the service still starts
  const tdir = safeDirSync(fs, [TEMPLATES])?.dir ?? null;
  for (const d of await listDir(tdir)) {
    const n = INTENT.exec(d.name)?.[1];
    if (n !== undefined && isTemplateName(n) && templateIntentFile(n) === d.name && (await recoverAtOpen(fs, TEMPLATES, d.name, () => templateRecovery(fs, n)))) done.templates.push(n);
  }
  if (tdir) {
    await sweep(fs, [TEMPLATES], 'templates');
    await sweep(fs, [TEMPLATES, KEPT_BASES], '.shipped-base');
  }
  const rdir = safeDirSync(fs, [ROLES])?.dir ?? null;
  for (const d of await listDir(rdir)) {
    const n = INTENT.exec(d.name)?.[1];
    if (n !== undefined && isRoleName(n) && roleIntentFile(n) === d.name && (await recoverAtOpen(fs, ROLES, d.name, () => roleRecovery(fs, n)))) done.roles.push(n);
  }
  if (rdir) {
    await sweep(fs, [ROLES], 'role');
    await sweep(fs, [ROLES, KEPT_BASES], 'role-base');
  }
  for (const d of await listDir(rdir)) {
    if (d.isDirectory() && isRoleName(d.name)) await sweep(fs, roleDir(d.name), 'role');
  }
  return done;
}
