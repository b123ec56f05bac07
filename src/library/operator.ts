import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isRoleName, isTemplateName } from '../template/names.js';
import type { LibraryContext } from './context.js';
import type { CachedRead } from './file-cache.js';
import { lstatOrNull, safeDir } from './fs-safe.js';
import { parseRoleIntent, parseTemplateIntent, roleIntentFile, templateIntentFile } from './intents.js';
import { type Marker, parseMarker, sha256Hex } from './markers.js';

/**
 * Reading the operator's folder (library-and-api.md §1–3): which names it
 * holds, and for one name what loads — with any pending intent applied, so a
 * reader never sees a write half done. Only names matching the patterns are
 * ever turned into paths; markers, intents, temp files and `.shipped-base/`
 * all start with a dot and so never match.
 */

export const MISSING: CachedRead = { kind: 'missing' };

export function fileFromText(text: string): CachedRead {
  const bytes = Buffer.from(text, 'utf8');
  return { kind: 'file', bytes, text, hash: sha256Hex(bytes) };
}

async function names(ctx: LibraryContext, folder: string, pick: (d: import('node:fs').Dirent) => string | null): Promise<string[]> {
  if (!ctx.fs) return [];
  const dir = await safeDir(ctx.fs, [folder], false);
  if (!dir) return [];
  const out: string[] = [];
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const n = pick(d);
    if (n !== null) out.push(n);
  }
  return out;
}

/** `<name>.yaml` files (and whatever else holds such a name: it is listed as unreadable). */
export function operatorTemplateNames(ctx: LibraryContext): Promise<string[]> {
  return names(ctx, 'templates', (d) => {
    if (!d.name.endsWith('.yaml')) return null;
    const n = d.name.slice(0, -'.yaml'.length);
    return isTemplateName(n) ? n : null;
  });
}

export function operatorRoleNames(ctx: LibraryContext): Promise<string[]> {
  return names(ctx, 'roles', (d) => ((d.isDirectory() || d.isSymbolicLink()) && isRoleName(d.name) ? d.name : null));
}

function markerOf(r: CachedRead): Marker | null {
  return r.kind === 'file' ? parseMarker(r.text) : null;
}

export interface TemplateCopyView {
  copy: CachedRead;
  marker: Marker | null;
}

export async function readTemplateCopy(ctx: LibraryContext, name: string): Promise<TemplateCopyView> {
  const dir = ctx.fs ? await safeDir(ctx.fs, ['templates'], false) : null;
  if (!dir) return { copy: MISSING, marker: null };
  const copy = await ctx.cache.read(join(dir, `${name}.yaml`));
  let marker = markerOf(await ctx.cache.read(join(dir, `.${name}.shipped`)));
  const intentRead = await ctx.cache.read(join(dir, templateIntentFile(name)));
  const intent = intentRead.kind === 'file' ? parseTemplateIntent(intentRead.text) : null;
  if (intent?.op === 'reset') return { copy: MISSING, marker: null };
  if (intent?.op === 'save' && copy.kind === 'file' && copy.hash === intent.marker.copy) marker = intent.marker;
  return { copy, marker };
}

export type RoleCopyView =
  | { kind: 'missing' }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'folder'; roleMd: CachedRead; kit: CachedRead; marker: Marker | null };

export async function readRoleCopy(ctx: LibraryContext, name: string): Promise<RoleCopyView> {
  const rolesDir = ctx.fs ? await safeDir(ctx.fs, ['roles'], false) : null;
  if (!rolesDir) return { kind: 'missing' };
  const intentRead = await ctx.cache.read(join(rolesDir, roleIntentFile(name)));
  const intent = intentRead.kind === 'file' ? parseRoleIntent(intentRead.text) : null;
  if (intent?.op === 'reset') return { kind: 'missing' };
  if (intent?.op === 'save') {
    return {
      kind: 'folder',
      roleMd: fileFromText(intent.role_md),
      kit: intent.kit === null ? MISSING : fileFromText(intent.kit),
      marker: intent.marker === null ? null : parseMarker(intent.marker),
    };
  }
  const dir = join(rolesDir, name);
  const st = await lstatOrNull(dir);
  if (!st) return { kind: 'missing' };
  if (st.isSymbolicLink()) return { kind: 'unreadable', reason: 'a symbolic link (not followed)' };
  if (!st.isDirectory()) return { kind: 'unreadable', reason: 'not a folder' };
  const roleMd = await ctx.cache.read(join(dir, 'role.md'));
  const kit = await ctx.cache.read(join(dir, 'kit.json'));
  return { kind: 'folder', roleMd, kit, marker: markerOf(await ctx.cache.read(join(dir, '.shipped'))) };
}
