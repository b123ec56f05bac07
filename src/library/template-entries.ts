import { problem } from '../template/problems.js';
import type { CatalogueSnapshot, LibraryContext } from './context.js';
import { etagOf, sha256Hex } from './markers.js';
import { operatorRoleNames, operatorTemplateNames, readTemplateCopySync } from './operator.js';
import { decideState } from './state.js';
import type { DirListing } from './dir-cache.js';
import type { EntryState, TemplateEntry } from './types.js';
import { validated } from './validation-memo.js';

/**
 * Template entries: what loads for a name, its state (library-and-api.md §2)
 * and its validation against the library's own catalogue.
 */

/** Every template name: shipped, read-only and the operator's, sorted. */
export function templateNames(ctx: LibraryContext): string[] {
  const set = new Set<string>([...ctx.shipped.templates.keys(), ...ctx.readOnly.keys(), ...operatorTemplateNames(ctx)]);
  return [...set].sort();
}

export function roleNames(ctx: LibraryContext): string[] {
  return [...new Set<string>([...ctx.shipped.roles.keys(), ...operatorRoleNames(ctx)])].sort();
}

let generations = 0;

/**
 * The catalogue as it is now: a role or template added by hand changes what
 * validates. Built from the two folder listings (dir-cache.ts), so while both
 * are current — one folder stat each — the last snapshot is the answer, the
 * same object; a snapshot whose names did not change keeps its generation.
 */
export function snapshotCatalogueSync(ctx: LibraryContext): CatalogueSnapshot {
  const templates = ctx.dirs.list(ctx.fs, 'templates');
  const roles = ctx.dirs.list(ctx.fs, 'roles', true);
  const last = ctx.lastCatalogue;
  if (last && last.templates === templates && last.roles === roles) return last.snapshot;
  const r = roleNames(ctx);
  const t = templateNames(ctx);
  const key = JSON.stringify([r, t]);
  let snapshot: CatalogueSnapshot;
  if (last && last.snapshot.key === key) snapshot = last.snapshot;
  else {
    snapshot = { catalogue: { roles: new Set(r), templates: new Set(t) }, key, gen: ++generations };
    // memos of templates that are gone would only hold memory
    for (const name of ctx.memo.keys()) {
      if (!snapshot.catalogue.templates.has(name)) {
        ctx.memo.delete(name);
        ctx.entries.delete(name);
      }
    }
  }
  ctx.lastCatalogue = { templates, roles, snapshot };
  return snapshot;
}

export async function snapshotCatalogue(ctx: LibraryContext): Promise<CatalogueSnapshot> {
  return snapshotCatalogueSync(ctx);
}

/** Where an entry's text comes from: a kept file (decoded when asked), a shipped template, a registered source. */
interface Source {
  readonly text: string;
}

function entry(
  ctx: LibraryContext,
  name: string,
  src: Source,
  hash: string,
  cat: CatalogueSnapshot,
  fields: { state: EntryState; shipped: boolean; read_only: boolean; edited_outside: boolean; shipped_source: string | null },
): TemplateEntry {
  const v = validated(ctx, name, src, hash, cat);
  const etag = etagOf(hash);
  const last = ctx.entries.get(name);
  // the same answer as last time is the same object: the HTTP layer keeps what it derives from it (answers.ts)
  if (
    last &&
    last.problems === v.problems &&
    last.etag === etag &&
    last.state === fields.state &&
    last.edited_outside === fields.edited_outside &&
    last.shipped === fields.shipped &&
    last.read_only === fields.read_only &&
    last.shipped_source === fields.shipped_source
  ) {
    return last;
  }
  const e: TemplateEntry = {
    name,
    state: fields.state,
    shipped: fields.shipped,
    read_only: fields.read_only,
    edited_outside: fields.edited_outside,
    // decoded when read: a kept entry holds the file's bytes, not a second copy as a string
    get source() {
      return src.text;
    },
    shipped_source: fields.shipped_source,
    etag,
    valid: v.valid,
    problems: v.problems,
    model: v.template,
  };
  ctx.entries.set(name, e);
  return e;
}

export async function templateEntry(ctx: LibraryContext, name: string, cat: CatalogueSnapshot): Promise<TemplateEntry | null> {
  return templateEntrySync(ctx, name, cat);
}

/** `listing`: the templates folder's listing when the caller has just proven it (a list), else it is fetched. */
export function templateEntrySync(ctx: LibraryContext, name: string, cat: CatalogueSnapshot, listing?: DirListing | null): TemplateEntry | null {
  const ro = ctx.readOnly.get(name);
  if (ro !== undefined) {
    // code-registered: operator files of this name are ignored, and never written
    const fields = { state: 'read_only', shipped: false, read_only: true, edited_outside: false, shipped_source: null } as const;
    return entry(ctx, name, { text: ro }, sha256Hex(ro), cat, fields);
  }
  const shipped = ctx.shipped.templates.get(name) ?? null;
  const { copy, marker } = readTemplateCopySync(ctx, name, listing);
  const shippedSource = shipped?.text ?? null;
  if (copy.kind === 'missing') {
    if (!shipped) return null;
    return entry(ctx, name, shipped, shipped.hash, cat, { state: 'shipped', shipped: true, read_only: false, edited_outside: false, shipped_source: shippedSource });
  }
  if (copy.kind === 'unreadable') {
    // listed, never followed or guessed at: one broken file hides nothing else
    return {
      name,
      state: shipped ? 'edited' : 'custom',
      shipped: shipped !== null,
      read_only: false,
      edited_outside: false,
      source: '',
      shipped_source: shippedSource,
      etag: etagOf(sha256Hex('')),
      valid: false,
      problems: [problem('file.unreadable', `templates/${name}.yaml cannot be read (${copy.reason}); replace it with a regular file`, '')],
      model: null,
    };
  }
  // a custom name's leftover marker (its shipped template was withdrawn) means nothing
  const st = shipped ? decideState(shipped.hash, copy.hash, marker) : CUSTOM;
  return entry(ctx, name, copy, copy.hash, cat, { state: st.state, shipped: shipped !== null, read_only: false, edited_outside: st.edited_outside, shipped_source: shippedSource });
}

const CUSTOM = { state: 'custom', edited_outside: false } as const;

/** Yield to the event loop after this much synchronous work, so a list of thousands never stalls other requests. */
const SLICE_MS = 8;

export async function listTemplateEntries(ctx: LibraryContext): Promise<TemplateEntry[]> {
  const cat = snapshotCatalogueSync(ctx);
  // proven current by the snapshot a moment ago: one folder stat per list, not one per template
  const listing = ctx.lastCatalogue!.templates;
  const out: TemplateEntry[] = [];
  let sliceStart = performance.now();
  // the catalogue's names are already sorted (templateNames)
  for (const name of cat.catalogue.templates) {
    const e = templateEntrySync(ctx, name, cat, listing);
    if (e) out.push(e);
    if ((out.length & 63) === 0 && performance.now() - sliceStart > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  return out;
}
