import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isRoleName, isTemplateName } from '../template/names.js';
import { roleRevision, sha256Hex } from './markers.js';

/**
 * The shipped templates and built-in roles (docs/harness.md), read once
 * at open from harness/ and never written. Names off the name patterns are
 * ignored, as they are in the operator's folder.
 */
export interface ShippedTemplate {
  bytes: Buffer;
  text: string;
  hash: string;
}

export interface ShippedRole {
  roleMd: Buffer;
  /** kit.json bytes, or null when the role has no kit */
  kit: Buffer | null;
  /** roleRevision(roleMd, kit) */
  revision: string;
}

export interface Shipped {
  templates: ReadonlyMap<string, ShippedTemplate>;
  roles: ReadonlyMap<string, ShippedRole>;
}

async function entries(dir: string): Promise<import('node:fs').Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

export async function loadShipped(harnessDir: string): Promise<Shipped> {
  const templates = new Map<string, ShippedTemplate>();
  for (const d of await entries(join(harnessDir, 'templates'))) {
    if (!d.isFile() || !d.name.endsWith('.yaml')) continue;
    const name = d.name.slice(0, -'.yaml'.length);
    if (!isTemplateName(name)) continue;
    const bytes = await readFile(join(harnessDir, 'templates', d.name));
    templates.set(name, { bytes, text: bytes.toString('utf8'), hash: sha256Hex(bytes) });
  }
  const roles = new Map<string, ShippedRole>();
  for (const d of await entries(join(harnessDir, 'roles'))) {
    if (!d.isDirectory() || !isRoleName(d.name)) continue;
    const dir = join(harnessDir, 'roles', d.name);
    // a folder without role.md is not a role (yet): skip it rather than fail every start
    const roleMd = await readFile(join(dir, 'role.md')).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    if (roleMd === null) continue;
    const kit = await readFile(join(dir, 'kit.json')).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    roles.set(d.name, { roleMd, kit, revision: roleRevision(roleMd, kit) });
  }
  return { templates, roles };
}
