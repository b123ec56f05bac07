import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DeskError } from '../errors.js';
import { isRoleName, isTemplateName } from '../template/names.js';
import { validateTemplate } from '../template/validate.js';
import { catalogueOf, kitsOf } from './catalogue.js';
import { roleRevision, sha256Hex } from './disk/markers.js';

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

/**
 * Refuses to serve a broken harness: every shipped template and every
 * read-only template code registers must be valid, checked against the
 * shipped names and roles alone (no operator folder). A broken one would
 * otherwise be listed `valid: false` and every copy, variant and reset
 * would start from it. Throws one `shipped_invalid` DeskError whose message
 * names each invalid template and each of its problems, on one line, so the
 * server can print it as its one refusal line.
 */
export function checkShipped(shipped: Shipped, readOnly: ReadonlyMap<string, string>): void {
  const catalogue = catalogueOf({
    shipped: { templates: shipped.templates.keys(), roles: shipped.roles.keys() },
    readOnly: readOnly.keys(),
    kits: kitsOf([...shipped.roles].map(([name, r]) => [name, r.kit] as [string, Buffer | null])),
  });
  const broken: string[] = [];
  const check = (label: string, name: string, source: string) => {
    const v = validateTemplate(source, { name, catalogue });
    if (v.valid) return;
    const problems = v.problems.map((p) => {
      const at = p.line === undefined ? '' : `${p.line}:${p.column ?? 1} `;
      return `${at}${p.code} ${p.message}`.replace(/\s+/g, ' ');
    });
    broken.push(`${label}: ${problems.join('; ')}`);
  };
  for (const [name, t] of shipped.templates) check(`templates/${name}.yaml`, name, t.text);
  for (const [name, source] of readOnly) check(`read-only template '${name}' (src/library/templates/read-only.ts)`, name, source);
  if (broken.length) {
    throw new DeskError('shipped_invalid', `the shipped templates are not valid; fix the harness: ${broken.join(' | ')}`, { templates: broken });
  }
}
