import type { Dirent } from 'node:fs';
import type { Catalogue } from '../template/model.js';
import { isRoleName, isTemplateName } from '../template/names.js';
import { READ_ONLY_TEMPLATES } from './templates/read-only.js';
import { validateKitText } from './roles/validate.js';

/**
 * The names the validator checks a template against (its `base`, its
 * roles): the shipped templates and built-in roles, the read-only templates
 * code registers, and the operator's folder. look.ts builds the one the
 * service checks against; the command line asks the same reader
 * (reader.ts), so a template clean for one is clean for the other.
 */
export interface CatalogueParts {
  /** shipped template names and built-in role names */
  shipped: { templates: Iterable<string>; roles: Iterable<string> };
  /** read-only template names. Default: those of READ_ONLY_TEMPLATES */
  readOnly?: Iterable<string>;
  /** the entries of `<root>/templates` and `<root>/roles` (look.ts); null: no operator folder */
  operator?: OperatorEntries | null;
  /**
   * The tools each role's kit grants (kitsOf). Absent: kits grant nothing.
   * What a kit grants counts as touched, and a kit granting tickets.update
   * makes a node mutate tickets (docs/format.md, "May mutate tickets").
   */
  kits?: ReadonlyMap<string, readonly string[]>;
}

export interface OperatorEntries {
  /** every entry name of `templates/`, markers and intents included */
  templates: Iterable<string>;
  /** the entries of `roles/` */
  roles: Iterable<Dirent>;
}

/** `<name>.yaml` names (whatever holds such a name: a folder is listed as unreadable). */
export function operatorTemplateNames(entries: Iterable<string>): string[] {
  const out: string[] = [];
  for (const f of entries) {
    if (!f.endsWith('.yaml')) continue;
    const n = f.slice(0, -'.yaml'.length);
    if (isTemplateName(n)) out.push(n);
  }
  return out;
}

/** Role folders, and links where a folder would be (listed as unreadable, never followed). */
export function operatorRoleNames(entries: Iterable<Dirent>): string[] {
  const out: string[] = [];
  for (const d of entries) if ((d.isDirectory() || d.isSymbolicLink()) && isRoleName(d.name)) out.push(d.name);
  return out;
}

export function catalogueOf(parts: CatalogueParts): Catalogue {
  const templates = new Set<string>(parts.shipped.templates);
  for (const t of parts.readOnly ?? READ_ONLY_TEMPLATES.keys()) templates.add(t);
  const roles = new Set<string>(parts.shipped.roles);
  if (parts.operator) {
    for (const t of operatorTemplateNames(parts.operator.templates)) templates.add(t);
    for (const r of operatorRoleNames(parts.operator.roles)) roles.add(r);
  }
  return parts.kits ? { templates, roles, kits: parts.kits } : { templates, roles };
}

/** What a role's kit.json holds as read: its bytes, null for no kit, or 'unreadable'. */
export type KitBytes = Buffer | null | 'unreadable';

/**
 * The tools of kit.json bytes, each Buffer read once: a library keeps one
 * (its context's `kits`), so the built-in roles' kits, the same Buffers at
 * every look, are not validated again at each (11 kits: about 0.2 ms a look).
 */
export class KitTools {
  private readonly parsed = new WeakMap<Buffer, readonly string[] | null>();

  /** null when the kit is not valid (such a role is shown invalid, and its kit grants nothing) */
  of(bytes: Buffer): readonly string[] | null {
    let tools = this.parsed.get(bytes);
    if (tools === undefined) {
      tools = validateKitText(bytes.toString('utf8')).kit?.tools ?? null;
      this.parsed.set(bytes, tools);
    }
    return tools;
  }
}

/**
 * The tools each role's kit grants: the built-in roles' kits, then each
 * operator role's in its place — an operator copy of a built-in role
 * without kit.json grants nothing. Roles with no valid kit are left out.
 */
export function kitsOf(shipped: Iterable<[string, Buffer | null]>, operator: Iterable<[string, KitBytes]> = [], tools: KitTools = new KitTools()): Map<string, readonly string[]> {
  const kits = new Map<string, readonly string[]>();
  const put = (role: string, kit: KitBytes) => {
    const granted = kit === null || kit === 'unreadable' ? null : tools.of(kit);
    if (granted) kits.set(role, granted);
    else kits.delete(role);
  };
  for (const [role, kit] of shipped) put(role, kit);
  for (const [role, kit] of operator) put(role, kit);
  return kits;
}

/** One role's kit as kitsOf would grant it: the operator's copy in place of the built-in one when there is a copy (undefined: none). */
export function kitOf(shipped: Buffer | null | undefined, operator: KitBytes | undefined, tools: KitTools = new KitTools()): readonly string[] | undefined {
  const kit = operator !== undefined ? operator : (shipped ?? null);
  return (kit === null || kit === 'unreadable' ? null : tools.of(kit)) ?? undefined;
}

/** Two catalogues' kits (maps, as kitsOf builds them) grant the same tools to the same roles. */
export function sameKits(a: Catalogue['kits'], b: Catalogue['kits']): boolean {
  if (!(a instanceof Map) || !(b instanceof Map)) return a === b;
  if (a.size !== b.size) return false;
  for (const [role, tools] of a as ReadonlyMap<string, readonly string[]>) {
    const other = (b as ReadonlyMap<string, readonly string[]>).get(role);
    if (!other || other.length !== tools.length || other.some((t, i) => t !== tools[i])) return false;
  }
  return true;
}
