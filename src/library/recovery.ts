import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DeskError } from '../errors.js';
import { isRoleName, isTemplateName } from '../template/names.js';
import { removeFileDurable, removeTreeDurable, TEMP_PREFIX, writeFileAtomic } from './atomic-write.js';
import { type FsContext, fault, lstatSyncOrNull, readNoFollow, safeDir } from './fs-safe.js';
import { intentMarker, parseRoleIntent, parseTemplateIntent, roleIntentFile, type RoleIntent, templateIntentFile } from './intents.js';
import { formatMarker, parseMarker, sha256Hex } from './markers.js';

/**
 * Applies intents left by a write that did not finish (intents.ts), for one
 * name or, at open, for the whole root — and removes leftover temp files.
 * Every step goes through the fault hook too, so a simulated crash also stops
 * the in-process recovery that a failed write attempts.
 */

export async function recoverTemplate(fs: FsContext, name: string): Promise<void> {
  const dir = await safeDir(fs, ['templates'], false);
  if (!dir) return;
  const intentFile = templateIntentFile(name);
  // the common case, no intent: one synchronous lstat, not a promise open's round trip
  if (lstatSyncOrNull(join(dir, intentFile)) === null) return;
  const r = await readNoFollow(join(dir, intentFile));
  if (r.kind === 'missing') return;
  const intent = r.kind === 'file' ? parseTemplateIntent(r.bytes.toString('utf8')) : null;
  if (intent?.op === 'reset') {
    await removeFileDurable(fs, ['templates', `${name}.yaml`], 'recover:copy-remove');
    await removeFileDurable(fs, ['templates', `.${name}.shipped`], 'recover:marker-remove');
  } else if (intent?.op === 'save') {
    const copy = await readNoFollow(join(dir, `${name}.yaml`));
    const onDisk = await readNoFollow(join(dir, `.${name}.shipped`));
    // the copy landed: its marker rolls forward; it did not: the old marker stands, or comes back
    const m = intentMarker(intent, copy.kind === 'file' ? sha256Hex(copy.bytes) : null, onDisk.kind === 'file' ? parseMarker(onDisk.bytes.toString('utf8')) : null);
    if (m === null) await removeFileDurable(fs, ['templates', `.${name}.shipped`], 'recover:marker-remove');
    else if (m !== undefined) await writeFileAtomic(fs, ['templates', `.${name}.shipped`], formatMarker(m), 'recover:marker');
  }
  await removeFileDurable(fs, ['templates', intentFile], 'recover:intent-remove');
}

/** Writes a role save's files from its intent; also the normal path of a save. */
export async function applyRoleSave(fs: FsContext, name: string, i: Extract<RoleIntent, { op: 'save' }>, prefix = ''): Promise<void> {
  await writeFileAtomic(fs, ['roles', name, 'role.md'], i.role_md, `${prefix}role-md`);
  if (i.kit === null) await removeFileDurable(fs, ['roles', name, 'kit.json'], `${prefix}kit-remove`);
  else await writeFileAtomic(fs, ['roles', name, 'kit.json'], i.kit, `${prefix}kit`);
  if (i.marker === null) await removeFileDurable(fs, ['roles', name, '.shipped'], `${prefix}marker-remove`);
  else await writeFileAtomic(fs, ['roles', name, '.shipped'], i.marker, `${prefix}marker`);
}

export async function recoverRole(fs: FsContext, name: string): Promise<void> {
  const dir = await safeDir(fs, ['roles'], false);
  if (!dir) return;
  const intentFile = roleIntentFile(name);
  const r = await readNoFollow(join(dir, intentFile));
  if (r.kind === 'missing') return;
  const intent = r.kind === 'file' ? parseRoleIntent(r.bytes.toString('utf8')) : null;
  if (intent?.op === 'reset') await removeTreeDurable(fs, ['roles', name], 'recover:folder-remove');
  else if (intent?.op === 'save') await applyRoleSave(fs, name, intent, 'recover:');
  await removeFileDurable(fs, ['roles', intentFile], 'recover:intent-remove');
}

async function listDir(dir: string | null): Promise<import('node:fs').Dirent[]> {
  return dir ? readdir(dir, { withFileTypes: true }) : [];
}

async function removeTemps(fs: FsContext, segs: string[]): Promise<void> {
  const dir = await safeDir(fs, segs, false).catch(() => null);
  for (const d of await listDir(dir)) {
    if (d.isFile() && d.name.startsWith(TEMP_PREFIX)) await removeFileDurable(fs, [...segs, d.name], 'recover:tmp-remove');
  }
}

const INTENT = /^\.(.+)\.intent$/;

/** A linked folder is not recovered into; the service still starts, and reads and writes there refuse it. */
function skipLink(e: unknown): null {
  if (e instanceof DeskError && e.code === 'symlink_refused') return null;
  throw e;
}

/** At open: every intent applied or discarded, every temp file gone. Returns what it did, for the log. */
export async function recoverRoot(fs: FsContext): Promise<{ templates: string[]; roles: string[] }> {
  await fault(fs, 'recover:start');
  const done = { templates: [] as string[], roles: [] as string[] };
  const tdir = await safeDir(fs, ['templates'], false).catch(skipLink);
  for (const d of await listDir(tdir)) {
    const n = INTENT.exec(d.name)?.[1];
    if (n !== undefined && isTemplateName(n)) {
      await recoverTemplate(fs, n);
      done.templates.push(n);
    }
  }
  if (tdir) {
    await removeTemps(fs, ['templates']);
    await removeTemps(fs, ['templates', '.shipped-base']);
  }
  const rdir = await safeDir(fs, ['roles'], false).catch(skipLink);
  for (const d of await listDir(rdir)) {
    const n = INTENT.exec(d.name)?.[1];
    if (n !== undefined && isRoleName(n)) {
      await recoverRole(fs, n);
      done.roles.push(n);
    }
  }
  if (rdir) await removeTemps(fs, ['roles']);
  for (const d of await listDir(rdir)) {
    if (d.isDirectory() && isRoleName(d.name)) await removeTemps(fs, ['roles', d.name]);
  }
  return done;
}
