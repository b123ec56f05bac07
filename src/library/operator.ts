import { join } from 'node:path';
import { isRoleName, isTemplateName } from '../template/names.js';
import type { LibraryContext } from './context.js';
import type { DirListing } from './dir-cache.js';
import type { CachedRead } from './file-cache.js';
import { intentMarker, parseRoleIntent, parseTemplateIntent, roleIntentFile, templateIntentFile } from './intents.js';
import { type Marker, parseMarker, sha256Hex } from './markers.js';

/**
 * Reading the operator's folder (docs/operations.md): which names it
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

/** `<name>.yaml` files (and whatever else holds such a name: it is listed as unreadable). */
export function operatorTemplateNames(ctx: LibraryContext): string[] {
  const listing = ctx.dirs.list(ctx.fs, 'templates');
  const out: string[] = [];
  for (const f of listing?.entries ?? []) {
    if (!f.endsWith('.yaml')) continue;
    const n = f.slice(0, -'.yaml'.length);
    if (isTemplateName(n)) out.push(n);
  }
  return out;
}

export function operatorRoleNames(ctx: LibraryContext): string[] {
  const listing = ctx.dirs.list(ctx.fs, 'roles', true);
  const out: string[] = [];
  for (const n of listing?.entries ?? []) if ((listing!.folders.has(n) || listing!.links.has(n)) && isRoleName(n)) out.push(n);
  return out;
}

function markerOf(r: CachedRead): Marker | null {
  return r.kind === 'file' ? parseMarker(r.text) : null;
}

export interface TemplateCopyView {
  copy: CachedRead;
  marker: Marker | null;
}

/**
 * The copy, its marker and any intent, from the folder's listing (dir-cache.ts):
 * a file the current listing does not hold is missing without a stat, so
 * a name with no copy, marker or intent costs nothing, and an unchanged copy
 * costs one lstat.
 */
export function readTemplateCopySync(ctx: LibraryContext, name: string, listing: DirListing | null = ctx.dirs.list(ctx.fs, 'templates')): TemplateCopyView {
  if (!listing) return { copy: MISSING, marker: null };
  // names are pattern-checked: plain concatenation is the join
  const at = (file: string) => (listing.entries.has(file) ? ctx.cache.readSync(`${listing.dir}/${file}`) : MISSING);
  const copy = at(`${name}.yaml`);
  let marker = markerOf(at(`.${name}.shipped`));
  const intentRead = at(templateIntentFile(name));
  const intent = intentRead.kind === 'file' ? parseTemplateIntent(intentRead.text) : null;
  if (intent?.op === 'reset') return { copy: MISSING, marker: null };
  if (intent?.op === 'save') {
    const m = intentMarker(intent, copy.kind === 'file' ? copy.hash : null, marker);
    if (m !== undefined) marker = m;
  }
  return { copy, marker };
}

export async function readTemplateCopy(ctx: LibraryContext, name: string): Promise<TemplateCopyView> {
  return readTemplateCopySync(ctx, name);
}

export type RoleCopyView =
  | { kind: 'missing' }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'folder'; roleMd: CachedRead; kit: CachedRead; marker: Marker | null };

export async function readRoleCopy(ctx: LibraryContext, name: string): Promise<RoleCopyView> {
  const listing = ctx.dirs.list(ctx.fs, 'roles', true);
  if (!listing) return { kind: 'missing' };
  const rolesDir = listing.dir;
  const intentRead = listing.entries.has(roleIntentFile(name)) ? ctx.cache.readSync(join(rolesDir, roleIntentFile(name))) : MISSING;
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
  if (!listing.entries.has(name)) return { kind: 'missing' };
  if (listing.links.has(name)) return { kind: 'unreadable', reason: 'a symbolic link (not followed)' };
  if (!listing.folders.has(name)) return { kind: 'unreadable', reason: 'not a folder' };
  const roleMd = ctx.cache.readSync(join(dir, 'role.md'));
  const kit = ctx.cache.readSync(join(dir, 'kit.json'));
  return { kind: 'folder', roleMd, kit, marker: markerOf(ctx.cache.readSync(join(dir, '.shipped'))) };
}
