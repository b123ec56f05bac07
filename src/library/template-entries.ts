import type { TemplateModel } from '../template/model.js';
import { type Problem, problem } from '../template/problems.js';
import type { Validation } from '../template/validate.js';
import type { CatalogueSnapshot, LibraryContext } from './context.js';
import { etagOf, sha256Hex } from './markers.js';
import { operatorRoleNames, operatorTemplateNames, readTemplateCopySync } from './operator.js';
import { decideState } from './state.js';
import type { DirListing } from './dir-cache.js';
import { FileChanged } from './file-cache.js';
import type { EntryState, TemplateEntry, TemplateOutline } from './types.js';
import { fullValidation, type ValidationMemo, validated } from './validation-memo.js';

/**
 * Template entries: what loads for a name, its state (docs/api.md, States)
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
        ctx.wholes.delete(name);
      }
    }
  }
  ctx.lastCatalogue = { templates, roles, snapshot };
  return snapshot;
}

export async function snapshotCatalogue(ctx: LibraryContext): Promise<CatalogueSnapshot> {
  return snapshotCatalogueSync(ctx);
}

/** Where an entry's text comes from: a kept file (its bytes read again when dropped), a shipped template, a registered source. */
interface Source {
  readonly text: string;
}

/**
 * A listed entry: the state, the ETag and the validation's outline kept; the
 * source, problems and model worked out when read (the file read again and
 * proven by its hash — FileChanged when it changed since — and the
 * validation taken from the memo or done again: pure, and the memo proved
 * its catalogue answers, so it is the same one).
 */
class ListedEntry implements TemplateEntry {
  constructor(
    readonly name: string,
    readonly state: EntryState,
    readonly shipped: boolean,
    readonly read_only: boolean,
    readonly edited_outside: boolean,
    readonly shipped_source: string | null,
    readonly etag: string,
    readonly memo: ValidationMemo,
    private readonly src: Source,
    private readonly ctx: LibraryContext,
    private readonly cat: CatalogueSnapshot,
  ) {}

  get outline(): TemplateOutline {
    return this.memo.outline;
  }
  get valid(): boolean {
    return this.memo.outline.valid;
  }
  get source(): string {
    return this.src.text;
  }
  get problems(): Problem[] {
    return this.validation().problems;
  }
  get model(): TemplateModel | null {
    return this.validation().template;
  }
  validation(): Validation {
    return fullValidation(this.ctx, this.memo, this.name, this.src, this.cat);
  }
}

type Fields = { state: EntryState; shipped: boolean; read_only: boolean; edited_outside: boolean; shipped_source: string | null };

function entry(ctx: LibraryContext, name: string, src: Source, hash: string, cat: CatalogueSnapshot, f: Fields, keep: boolean): TemplateEntry {
  const memo = validated(ctx, name, src, hash, cat, keep);
  const etag = etagOf(hash);
  const last = ctx.entries.get(name);
  // the same answer as last time is the same object: the HTTP layer keeps what it derives from it (answers.ts)
  if (
    last instanceof ListedEntry &&
    last.memo === memo &&
    last.etag === etag &&
    last.state === f.state &&
    last.edited_outside === f.edited_outside &&
    last.shipped === f.shipped &&
    last.read_only === f.read_only &&
    last.shipped_source === f.shipped_source
  ) {
    return last;
  }
  const e = new ListedEntry(name, f.state, f.shipped, f.read_only, f.edited_outside, f.shipped_source, etag, memo, src, ctx, cat);
  ctx.entries.set(name, e);
  return e;
}

/** How many whole entries are kept (the templates most recently read one by one). */
const WHOLES_KEPT = 256;

/**
 * A listed entry made whole: its source, problems and model as fields. The
 * same object while the listed entry is, for the WHOLES_KEPT most recently
 * read, so the HTTP layer's kept answer bytes stay warm.
 */
function wholeOf(ctx: LibraryContext, e: TemplateEntry): TemplateEntry {
  if (!(e instanceof ListedEntry)) return e;
  const kept = ctx.wholes.get(e.name);
  ctx.wholes.delete(e.name);
  if (kept && kept.listed === e) {
    ctx.wholes.set(e.name, kept);
    return kept.whole;
  }
  const v = e.validation();
  const whole: TemplateEntry = {
    name: e.name,
    state: e.state,
    shipped: e.shipped,
    read_only: e.read_only,
    edited_outside: e.edited_outside,
    source: e.source,
    shipped_source: e.shipped_source,
    etag: e.etag,
    valid: e.valid,
    outline: e.outline,
    problems: v.problems,
    model: v.template,
  };
  ctx.wholes.set(e.name, { listed: e, whole });
  if (ctx.wholes.size > WHOLES_KEPT) ctx.wholes.delete(ctx.wholes.keys().next().value!);
  return whole;
}

const UNREADABLE_OUTLINE: TemplateOutline = { valid: false, purpose: null, base: null, ticket: false, writes: false, closes_ticket: false, errors: 1, warnings: 0 };

export async function templateEntry(ctx: LibraryContext, name: string, cat: CatalogueSnapshot): Promise<TemplateEntry | null> {
  return templateEntrySync(ctx, name, cat);
}

/**
 * `listing`: the templates folder's listing when the caller has just proven
 * it (a list), else it is fetched. `whole`: the entry with its source,
 * problems and model as fields (one template's answer), else a listed entry.
 * A file that changed while its dropped bytes were read again is looked at
 * again.
 */
export function templateEntrySync(ctx: LibraryContext, name: string, cat: CatalogueSnapshot, listing?: DirListing | null, whole = false): TemplateEntry | null {
  for (let attempt = 0; ; attempt++) {
    try {
      const e = entryOnce(ctx, name, cat, listing, whole);
      return whole && e ? wholeOf(ctx, e) : e;
    } catch (err) {
      if (!(err instanceof FileChanged) || attempt >= 2) throw err;
    }
  }
}

function entryOnce(ctx: LibraryContext, name: string, cat: CatalogueSnapshot, listing: DirListing | null | undefined, keep: boolean): TemplateEntry | null {
  const ro = ctx.readOnly.get(name);
  if (ro !== undefined) {
    // code-registered: operator files of this name are ignored, and never written
    const fields = { state: 'read_only', shipped: false, read_only: true, edited_outside: false, shipped_source: null } as const;
    return entry(ctx, name, { text: ro }, sha256Hex(ro), cat, fields, keep);
  }
  const shipped = ctx.shipped.templates.get(name) ?? null;
  const { copy, marker } = readTemplateCopySync(ctx, name, listing);
  const shippedSource = shipped?.text ?? null;
  if (copy.kind === 'missing') {
    if (!shipped) return null;
    return entry(ctx, name, shipped, shipped.hash, cat, { state: 'shipped', shipped: true, read_only: false, edited_outside: false, shipped_source: shippedSource }, keep);
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
      outline: UNREADABLE_OUTLINE,
      problems: [problem('file.unreadable', `templates/${name}.yaml cannot be read (${copy.reason}); replace it with a regular file`, '')],
      model: null,
    };
  }
  // a custom name's leftover marker (its shipped template was withdrawn) means nothing
  const st = shipped ? decideState(shipped.hash, copy.hash, marker) : CUSTOM;
  return entry(ctx, name, copy, copy.hash, cat, { state: st.state, shipped: shipped !== null, read_only: false, edited_outside: st.edited_outside, shipped_source: shippedSource }, keep);
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
