import type { Validation } from '../template/validate.js';
import { problem } from '../template/problems.js';
import type { CatalogueSnapshot, LibraryContext } from './context.js';
import { etagOf, sha256Hex } from './markers.js';
import { operatorRoleNames, operatorTemplateNames, readTemplateCopy } from './operator.js';
import { decideState } from './state.js';
import type { EntryState, TemplateEntry } from './types.js';

/**
 * Template entries: what loads for a name, its state (library-and-api.md §2)
 * and its validation against the library's own catalogue.
 */

/** Every template name: shipped, read-only and the operator's, sorted. */
export async function templateNames(ctx: LibraryContext): Promise<string[]> {
  const set = new Set<string>([...ctx.shipped.templates.keys(), ...ctx.readOnly.keys(), ...(await operatorTemplateNames(ctx))]);
  return [...set].sort();
}

export async function roleNames(ctx: LibraryContext): Promise<string[]> {
  return [...new Set<string>([...ctx.shipped.roles.keys(), ...(await operatorRoleNames(ctx))])].sort();
}

/** Read each time (two readdirs): a role or template added by hand changes what validates. */
export async function snapshotCatalogue(ctx: LibraryContext): Promise<CatalogueSnapshot> {
  const [roles, templates] = await Promise.all([roleNames(ctx), templateNames(ctx)]);
  return { catalogue: { roles: new Set(roles), templates: new Set(templates) }, key: JSON.stringify([roles, templates]) };
}

/** Validation memoised on (name, content hash, catalogue key): a catalogue change re-validates everything. */
function validated(ctx: LibraryContext, name: string, text: string, hash: string, cat: CatalogueSnapshot): Validation {
  const m = ctx.memo.get(name);
  if (m && m.hash === hash && m.catalogueKey === cat.key) return m.result;
  const result = ctx.validate(text, { name, catalogue: cat.catalogue });
  ctx.memo.set(name, { hash, catalogueKey: cat.key, result });
  return result;
}

function entry(
  ctx: LibraryContext,
  name: string,
  text: string,
  hash: string,
  cat: CatalogueSnapshot,
  fields: { state: EntryState; shipped: boolean; read_only: boolean; edited_outside: boolean; shipped_source: string | null },
): TemplateEntry {
  const v = validated(ctx, name, text, hash, cat);
  return { name, ...fields, source: text, etag: etagOf(hash), valid: v.valid, problems: v.problems, model: v.template };
}

export async function templateEntry(ctx: LibraryContext, name: string, cat: CatalogueSnapshot): Promise<TemplateEntry | null> {
  const ro = ctx.readOnly.get(name);
  if (ro !== undefined) {
    // code-registered: operator files of this name are ignored, and never written
    const fields = { state: 'read_only', shipped: false, read_only: true, edited_outside: false, shipped_source: null } as const;
    return entry(ctx, name, ro, sha256Hex(ro), cat, fields);
  }
  const shipped = ctx.shipped.templates.get(name) ?? null;
  const { copy, marker } = await readTemplateCopy(ctx, name);
  const base = { shipped: shipped !== null, read_only: false, shipped_source: shipped?.text ?? null };
  if (copy.kind === 'missing') {
    if (!shipped) return null;
    return entry(ctx, name, shipped.text, shipped.hash, cat, { ...base, state: 'shipped', edited_outside: false });
  }
  if (copy.kind === 'unreadable') {
    // listed, never followed or guessed at: one broken file hides nothing else
    return {
      name,
      ...base,
      state: shipped ? 'edited' : 'custom',
      edited_outside: false,
      source: '',
      etag: etagOf(sha256Hex('')),
      valid: false,
      problems: [problem('file.unreadable', `templates/${name}.yaml cannot be read (${copy.reason}); replace it with a regular file`, '')],
      model: null,
    };
  }
  // a custom name's leftover marker (its shipped template was withdrawn) means nothing
  const st = shipped ? decideState(shipped.hash, copy.hash, marker) : { state: 'custom' as const, edited_outside: false };
  return entry(ctx, name, copy.text, copy.hash, cat, { ...base, ...st });
}

export async function listTemplateEntries(ctx: LibraryContext): Promise<TemplateEntry[]> {
  const cat = await snapshotCatalogue(ctx);
  const out: TemplateEntry[] = [];
  for (const name of [...cat.catalogue.templates].sort()) {
    const e = await templateEntry(ctx, name, cat);
    if (e) out.push(e);
  }
  return out;
}
