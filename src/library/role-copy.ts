import type { LibraryContext } from './context.js';
import { lstatSyncOrNull, type ReadOutcome, readNoFollowSync, safeDirSync } from './disk/fs-safe.js';
import { parseRoleIntent, roleIntentFile } from './disk/intents.js';
import { type Marker, parseMarker } from './disk/markers.js';
import { ROLES } from './layout.js';

/**
 * A role's files as they are on disk, with any pending intent applied (a
 * save's redo record is what the role reads as until recovery lands it).
 * Plain reads: no state, no validation (entries.ts does those).
 */

export type FileRead = { kind: 'missing' } | { kind: 'unreadable'; reason: string } | { kind: 'too_large'; size: number } | { kind: 'file'; bytes: Buffer; text: string };

export type RoleCopyView = { kind: 'missing' } | { kind: 'unreadable'; reason: string } | { kind: 'folder'; roleMd: FileRead; kit: FileRead; marker: Marker | null };

function read(path: string): FileRead {
  return asRead(readNoFollowSync(path));
}

function asRead(r: ReadOutcome): FileRead {
  if (r.kind === 'file') return { kind: 'file', bytes: r.bytes, text: r.bytes.toString('utf8') };
  return r;
}

function fromText(text: string): FileRead {
  return { kind: 'file', bytes: Buffer.from(text, 'utf8'), text };
}

export function readRoleCopy(ctx: LibraryContext, name: string): RoleCopyView {
  const found = ctx.fs ? safeDirSync(ctx.fs, [ROLES]) : null;
  if (!found) return { kind: 'missing' };
  const intentRead = read(`${found.dir}/${roleIntentFile(name)}`);
  const intent = intentRead.kind === 'file' ? parseRoleIntent(intentRead.text) : null;
  if (intent?.op === 'reset') return { kind: 'missing' };
  if (intent?.op === 'save') {
    return {
      kind: 'folder',
      roleMd: fromText(intent.role_md),
      kit: intent.kit === null ? { kind: 'missing' } : fromText(intent.kit),
      marker: intent.marker === null ? null : parseMarker(intent.marker),
    };
  }
  const dir = `${found.dir}/${name}`;
  const st = lstatSyncOrNull(dir);
  if (!st) return { kind: 'missing' };
  if (st.isSymbolicLink()) return { kind: 'unreadable', reason: 'a symbolic link (not followed)' };
  if (!st.isDirectory()) return { kind: 'unreadable', reason: 'not a folder' };
  const marker = read(`${dir}/.shipped`);
  return { kind: 'folder', roleMd: read(`${dir}/role.md`), kit: read(`${dir}/kit.json`), marker: marker.kind === 'file' ? parseMarker(marker.text) : null };
}

