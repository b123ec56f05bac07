import { removeFileDurable, removeTreeDurable, writeFileAtomic } from '../disk/atomic-write.js';
import { type FsContext, safeDir, safeTarget } from '../disk/fs-safe.js';
import { formatRoleIntent, type RoleIntent } from '../disk/intents.js';
import { ROLE_FILES, roleDir, roleFile, roleIntent } from '../layout.js';
import { applyRoleSave } from '../disk/recovery.js';

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

export async function writeRoleSave(fs: FsContext, name: string, intent: Extract<RoleIntent, { op: 'save' }>): Promise<void> {
  await precheck(fs, name);
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
