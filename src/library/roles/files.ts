import { join } from 'node:path';
import { removeFileDurable, removeTreeDurable, writeFileAtomic } from '../disk/atomic-write.js';
import { type FsContext, lstatOrNull, readNoFollow, safeDir, safeDirSync, safeTarget } from '../disk/fs-safe.js';
import { formatRoleIntent, type RoleIntent } from '../disk/intents.js';
import { roleRevision } from '../disk/markers.js';
import { KEPT_BASES, keptRoleBase, ROLE_FILES, ROLES, roleDir, roleFile, roleIntent } from '../layout.js';
import { applyRoleSave } from '../disk/recovery.js';
import type { ShippedRole } from '../shipped.js';
import { canonicalJson } from './canonical.js';

/**
 * The file steps of role writes. A role is up to three files, so every write
 * is a redo record first (`roles/.<name>.intent`, see intents.ts): once it is
 * on disk the write is decided, and readers and recovery both apply it.
 */

async function precheck(fs: FsContext, name: string): Promise<void> {
  await safeTarget(fs, roleIntent(name), true);
  // a link at the role folder or at any of its files is refused before anything is written
  const dir = await safeDir(fs, roleDir(name), false);
  if (dir) for (const f of ROLE_FILES) await safeTarget(fs, roleFile(name, f), false);
}

/** `shipped`: the built-in role the copy is saved against, whose files are kept first (keepRoleBase) so a later upgrade can merge over them. */
export async function writeRoleSave(fs: FsContext, name: string, intent: Extract<RoleIntent, { op: 'save' }>, shipped?: ShippedRole): Promise<void> {
  await precheck(fs, name);
  if (shipped) await keepRoleBase(fs, shipped);
  await writeFileAtomic(fs, roleIntent(name), formatRoleIntent(intent), 'intent');
  await applyRoleSave(fs, name, intent);
  await removeFileDurable(fs, roleIntent(name), 'intent-remove');
}

export async function writeRoleReset(fs: FsContext, name: string): Promise<void> {
  await precheck(fs, name);
  await writeFileAtomic(fs, roleIntent(name), formatRoleIntent({ op: 'reset' }), 'intent');
  await removeTreeDurable(fs, roleDir(name), 'folder-remove');
  await removeFileDurable(fs, roleIntent(name), 'intent-remove');
}

/** A built-in role's files as kept: role.md and kit.json (null: no kit) as text. */
export interface RoleBase {
  role_md: string;
  kit: string | null;
}

/**
 * The built-in role's files a copy is saved against, kept under their
 * revision for a later three-way merge, as templates/files.ts keepBase
 * keeps a template's. Written only when absent (a file of that size there is
 * taken as kept; readRoleBase checks the revision when it is used).
 */
export async function keepRoleBase(fs: FsContext, shipped: ShippedRole): Promise<void> {
  const bytes = Buffer.from(canonicalJson({ role_md: shipped.roleMd.toString('utf8'), kit: shipped.kit === null ? null : shipped.kit.toString('utf8') }), 'utf8');
  const target = await safeTarget(fs, keptRoleBase(shipped.revision), true);
  const have = target ? await lstatOrNull(target.path) : null;
  if (have?.isFile() && have.size === BigInt(bytes.length)) return;
  await writeFileAtomic(fs, keptRoleBase(shipped.revision), bytes, 'base');
}

/** The kept files of a built-in role's revision, or null when none is kept (or what is there no longer has that revision). */
export async function readRoleBase(fs: FsContext, revision: string): Promise<RoleBase | null> {
  const dir = safeDirSync(fs, [ROLES, KEPT_BASES])?.dir ?? null;
  if (!dir) return null;
  const r = await readNoFollow(join(dir, `${revision}.json`));
  if (r.kind !== 'file') return null;
  try {
    const v = JSON.parse(r.bytes.toString('utf8')) as { role_md?: unknown; kit?: unknown };
    if (typeof v.role_md !== 'string' || (v.kit !== null && typeof v.kit !== 'string')) return null;
    const kit = v.kit as string | null;
    return roleRevision(Buffer.from(v.role_md, 'utf8'), kit === null ? null : Buffer.from(kit, 'utf8')) === revision ? { role_md: v.role_md, kit } : null;
  } catch {
    return null;
  }
}
