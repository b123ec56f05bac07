import { type Dirent, readdirSync } from 'node:fs';
import type { Catalogue } from '../template/model.js';
import { isRoleName, isTemplateName } from '../template/names.js';
import { catalogueOf, type KitBytes, kitOf, kitsOf, operatorRoleNames, sameKits } from './catalogue.js';
import type { LibraryContext } from './context.js';
import { type FsContext, lstatSyncOrNull, mapFsError, safeDirSync } from './disk/fs-safe.js';
import { ROLES, TEMPLATES } from './layout.js';
import { readRoleCopy } from './role-copy.js';
import type { CatalogueGen } from './memos/validation-memo.js';

/**
 * One look at the operator's folders, taken afresh by every call: the
 * entries of `templates/` and `roles/` as they are now, and the catalogue
 * they make. No listing is kept, so none can be stale; listing a folder of
 * 10,000 names costs a few milliseconds.
 */
export interface Look extends CatalogueGen {
  /** `<root>/templates` and every entry in it (markers and intents too); null: no such folder */
  templates: TemplatesFolder | null;
  /** the entries of `<root>/roles`, typed (folders, links) */
  roles: { dir: string; entries: Dirent[] } | null;
}

export interface TemplatesFolder {
  dir: string;
  entries: ReadonlySet<string>;
  /** the names that have `<name>.yaml` here */
  copies: ReadonlySet<string>;
  /** the names that have a marker or an intent here (`.<name>.shipped`, `.<name>.intent`): most have neither, and need no stat for them */
  dotted: ReadonlySet<string>;
}

/** `.<name>.shipped` and `.<name>.intent` → name. */
const DOTTED = /^\.(.+)\.(?:shipped|intent)$/;

function templatesFolder(dir: string): TemplatesFolder {
  const entries = new Set(readdirSync(dir));
  const copies = new Set<string>();
  const dotted = new Set<string>();
  for (const e of entries) {
    if (e.charCodeAt(0) !== 46) {
      if (e.endsWith('.yaml')) copies.add(e.slice(0, -5));
      continue;
    }
    const m = DOTTED.exec(e);
    if (m) dotted.add(m[1]!);
  }
  return { dir, entries, copies, dotted };
}

function listed<T>(fs: FsContext | null, folder: string, read: (dir: string) => T): { dir: string; entries: T } | null {
  if (!fs) return null;
  // a link on the way is refused here (symlink_refused), never followed
  const found = safeDirSync(fs, [folder]);
  if (!found) return null;
  try {
    return { dir: found.dir, entries: read(found.dir) };
  } catch (e) {
    // removed since its stat: as good as missing
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw mapFsError(e);
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const n of a) if (!b.has(n)) return false;
  return true;
}

export function look(ctx: LibraryContext): Look {
  const found = listed(ctx.fs, 'templates', templatesFolder);
  const templates = found?.entries ?? null;
  const roles = listed(ctx.fs, 'roles', (d) => readdirSync(d, { withFileTypes: true }));
  const catalogue = catalogueOf({
    shipped: { templates: ctx.shipped.templates.keys(), roles: ctx.shipped.roles.keys() },
    readOnly: ctx.readOnly.keys(),
    operator: { templates: templates?.entries ?? [], roles: roles?.entries ?? [] },
    kits: operatorKits(ctx, roles?.entries ?? []),
  });
  const last = ctx.last;
  if (last && sameSet(last.catalogue.templates, catalogue.templates) && sameSet(last.catalogue.roles, catalogue.roles) && sameKits(last.catalogue.kits, catalogue.kits)) {
    return { catalogue: last.catalogue, gen: last.gen, templates, roles };
  }
  // a new token: memos proven under the old names are asked their refs again
  ctx.last = { catalogue, gen: {} };
  // what is kept for names that are gone would only hold memory
  ctx.memo.prune(catalogue.templates);
  ctx.entries.prune(catalogue.templates);
  return { catalogue, gen: ctx.last.gen, templates, roles };
}

/**
 * Each role's kit is part of what a template is
 * checked against — a kit granting tickets.update makes a node mutate
 * tickets. The built-in roles' kits, then each operator role copy's (read as
 * its role entry reads it: intents applied, links and odd files refused), so
 * a kit saved or edited by hand counts at the next look.
 */
function operatorKits(ctx: LibraryContext, roleEntries: Iterable<Dirent>): Map<string, readonly string[]> {
  const shipped: [string, Buffer | null][] = [...ctx.shipped.roles].map(([name, r]) => [name, r.kit]);
  const operator: [string, KitBytes][] = [];
  for (const name of operatorRoleNames(roleEntries)) {
    const kit = operatorKit(ctx, name);
    // no copy after all: the built-in kit stands
    if (kit !== undefined) operator.push([name, kit]);
  }
  return kitsOf(shipped, operator, ctx.kits);
}

/** One operator role copy's kit as operatorKits reads it; undefined when the folder holds no copy after all. */
function operatorKit(ctx: LibraryContext, name: string): KitBytes | undefined {
  const copy = readRoleCopy(ctx, name);
  if (copy.kind === 'missing') return undefined;
  if (copy.kind === 'unreadable') return 'unreadable';
  return copy.kit.kind === 'file' ? copy.kit.bytes : copy.kit.kind === 'missing' ? null : 'unreadable';
}

/** A set that answers `has` name by name and lists itself only when walked. */
function askedSet(has: (name: string) => boolean, all: () => ReadonlySet<string>): ReadonlySet<string> {
  return {
    has,
    get size() {
      return all().size;
    },
    forEach(cb, thisArg) {
      for (const v of all()) cb.call(thisArg, v, v, this);
    },
    entries: () => all().entries(),
    keys: () => all().keys(),
    values: () => all().values(),
    [Symbol.iterator]: () => all()[Symbol.iterator](),
  } as ReadonlySet<string>;
}

/**
 * The catalogue a look would build, asked name by name: each question is
 * one or two lstats of the very entries look() lists (and a role's own
 * files for its kit), so one template's read or write costs the same in a
 * library of ten names or ten thousand. The validator asks by name
 * (template/lookups.ts); walking a set falls back to a whole look. The same
 * answers as look(ctx).catalogue for every name: test/look-point.test.ts
 * holds the two side by side over odd roots.
 */
export function pointCatalogue(ctx: LibraryContext): Catalogue {
  let whole: Catalogue | null = null;
  const full = () => (whole ??= look(ctx).catalogue);
  // each folder judged once: a point catalogue serves one read or write, whose questions
  // (the roles of both validations behind a card, their kits) would each stat the folder again
  const dirs = new Map<string, string | null>();
  const entry = (folder: string, file: string) => {
    let dir = dirs.get(folder);
    if (dir === undefined) {
      dir = ctx.fs ? (safeDirSync(ctx.fs, [folder])?.dir ?? null) : null;
      dirs.set(folder, dir);
    }
    return dir ? lstatSyncOrNull(`${dir}/${file}`) : null;
  };
  // what operatorRoleNames counts: a folder, or a link where a folder would be (listed as unreadable)
  const roleFolder = (name: string) => {
    if (!isRoleName(name)) return false;
    const st = entry(ROLES, name);
    return st !== null && (st.isDirectory() || st.isSymbolicLink());
  };
  const templates = askedSet(
    (name) => ctx.shipped.templates.has(name) || ctx.readOnly.has(name) || (isTemplateName(name) && entry(TEMPLATES, `${name}.yaml`) !== null),
    () => full().templates,
  );
  const roles = askedSet((name) => ctx.shipped.roles.has(name) || roleFolder(name), () => full().roles);
  const kits = { get: (role: string) => kitOf(ctx.shipped.roles.get(role)?.kit, roleFolder(role) ? operatorKit(ctx, role) : undefined, ctx.kits) };
  return { templates, roles, kits };
}

/**
 * The point catalogue with a generation of its own, for the memo: a token
 * new at every call, so it never equals a whole look's — a memo is then
 * proven by asking its refs again, a few lstats, never by listing.
 */
export function pointLook(ctx: LibraryContext): CatalogueGen {
  return { catalogue: pointCatalogue(ctx), gen: {} };
}
