import { type BigIntStats, closeSync, constants, openSync, readSync } from 'node:fs';
import { buildCard, type CardAgainst } from '../../template/card.js';
import { isTemplateName } from '../../template/names.js';
import { type Problem, problem } from '../../template/problems.js';
import type { LibraryContext } from '../context.js';
import { lstatSyncOrNull, type ReadOutcome, readNoFollowSync, safeDirSync, TEMPLATE_CAP } from '../disk/fs-safe.js';
import { intentMarker, parseTemplateIntent, templateIntentFile } from '../disk/intents.js';
import { type Look, look, pointLook, type TemplatesFolder } from '../look.js';
import type { CatalogueGen } from '../memos/validation-memo.js';
import { etagOf, type Marker, parseMarker, sha256Hex } from '../disk/markers.js';
import { decideState, syncState } from '../state.js';
import { TEMPLATES } from '../layout.js';
import type { TemplateDetail, TemplateEntry, TemplateFacts, TemplateOutline } from '../entries.js';

/**
 * Reading templates (docs/api.md, States): what loads for a name — with any
 * pending intent applied, so a reader never sees a write half done — its
 * state, and its validation from the memo. A single template is read from
 * disk every time; the list reads only what the stats of its files say
 * changed (entry-cache.ts).
 */

/** One name's files as read now. */
export interface TemplateRead {
  facts: TemplateFacts;
  /** the bytes that load, as text; '' when the copy cannot be read */
  source: string;
  shippedSource: string | null;
  /** the copy cannot be read: the one problem its entry carries */
  unreadable: Problem | null;
  /** the marker that stands, any pending intent applied */
  marker: Marker | null;
  /** the stats of the copy, marker and intent read (null: not there); null when one could not be read, so nothing is kept */
  stats: (BigIntStats | null)[] | null;
  /** now(), taken before the reads */
  readAt: number;
}

/** The templates folder and its entries (which files are there to read); entries null: open each file (ENOENT when absent). */
type Folder = Pick<TemplatesFolder, 'dir'> & { entries: ReadonlySet<string> | null } | null;

const MISSING: ReadOutcome = { kind: 'missing' };

/**
 * A name's facts, one literal of one shape: the entry cache keeps one per
 * listed template, and objects spread together got a hidden class each (about
 * 250 bytes more per template at 10,000). The ETag as one flat string of its
 * own: the quoted text in pieces would be kept as pieces.
 */
function factsOf(name: string, st: Pick<TemplateFacts, 'state' | 'edited_outside'>, shipped: boolean, readOnly: boolean, hash: string): TemplateFacts {
  const etag = JSON.parse(JSON.stringify(etagOf(hash))) as string;
  return { name, state: st.state, shipped, read_only: readOnly, edited_outside: st.edited_outside, hash, etag };
}

export function readTemplate(ctx: LibraryContext, name: string, folder: Folder): TemplateRead | null {
  const readAt = ctx.now();
  const ro = ctx.readOnly.get(name);
  if (ro !== undefined) {
    // code-registered: operator files of this name are ignored, and never written
    const hash = sha256Hex(ro);
    const facts = factsOf(name, { state: 'read_only', edited_outside: false }, false, true, hash);
    return { facts, source: ro, shippedSource: null, unreadable: null, marker: null, stats: null, readAt };
  }
  const shipped = ctx.shipped.templates.get(name) ?? null;
  // names are pattern-checked: plain concatenation is the join
  const at = (file: string) => (folder && (folder.entries === null || folder.entries.has(file)) ? readNoFollowSync(`${folder.dir}/${file}`) : MISSING);
  let copy = at(`${name}.yaml`);
  const markerRead = at(`.${name}.shipped`);
  const intentRead = at(templateIntentFile(name));
  const reads = [copy, markerRead, intentRead];
  // a marker or intent that cannot be read counts as none; nothing about this name is kept then
  const stats = reads.every((r) => r.kind === 'file' || r.kind === 'missing') ? reads.map((r) => (r.kind === 'file' ? r.stat : null)) : null;
  let marker: Marker | null = markerRead.kind === 'file' ? parseMarker(markerRead.bytes.toString('utf8')) : null;
  const intent = intentRead.kind === 'file' ? parseTemplateIntent(intentRead.bytes.toString('utf8')) : null;
  const copyHash = copy.kind === 'file' ? sha256Hex(copy.bytes) : null;
  if (intent?.op === 'reset') {
    copy = MISSING;
    marker = null;
  } else if (intent?.op === 'save') {
    const m = intentMarker(intent, copyHash, marker);
    if (m !== undefined) marker = m;
  }
  const shippedSource = shipped?.text ?? null;
  if (copy.kind === 'missing') {
    if (!shipped) return null;
    // a copy this desk removed while the remote changed it is diverged too
    const st = syncState({ state: 'shipped', edited_outside: false } as const, ctx.diverged.templates.has(name));
    const facts = factsOf(name, st, true, false, shipped.hash);
    return { facts, source: shipped.text, shippedSource, unreadable: null, marker, stats, readAt };
  }
  if (copy.kind !== 'file') {
    // listed, never followed or guessed at: one broken file hides nothing else
    const hash = sha256Hex('');
    const facts = factsOf(name, { state: shipped ? 'edited' : 'custom', edited_outside: false }, shipped !== null, false, hash);
    const why =
      copy.kind === 'too_large'
        ? problem('limit.size', `templates/${name}.yaml is ${copy.size} bytes, over the ${TEMPLATE_CAP}-byte cap; it is not read`, '')
        : problem('file.unreadable', `templates/${name}.yaml cannot be read (${copy.reason}); replace it with a regular file`, '');
    return { facts, source: '', shippedSource, unreadable: why, marker, stats: null, readAt };
  }
  // a custom name's leftover marker (its shipped template was withdrawn) means nothing
  const decided = shipped ? decideState(shipped.hash, copyHash!, marker) : ({ state: 'custom', edited_outside: false } as const);
  const st = syncState(decided, ctx.diverged.templates.has(name));
  const facts = factsOf(name, st, shipped !== null, false, copyHash!);
  return { facts, source: copy.bytes.toString('utf8'), shippedSource, unreadable: null, marker, stats, readAt };
}

const UNREADABLE: TemplateOutline = { valid: false, purpose: null, base: null, ticket: false, writes: false, closes_ticket: false, errors: 1, warnings: 0 };

/** One object of one shape per listed template, made at each list (a literal, not spreads: thousands per list); nothing keeps it. */
function entryOf(f: TemplateFacts, o: TemplateOutline): TemplateEntry {
  return {
    name: f.name,
    state: f.state,
    shipped: f.shipped,
    read_only: f.read_only,
    edited_outside: f.edited_outside,
    hash: f.hash,
    etag: f.etag,
    valid: o.valid,
    purpose: o.purpose,
    base: o.base,
    ticket: o.ticket,
    writes: o.writes,
    closes_ticket: o.closes_ticket,
    errors: o.errors,
    warnings: o.warnings,
  };
}

/** A template as the list shows it: from the kept facts when its files' stats prove them, else read. */
function listed(ctx: LibraryContext, name: string, l: Look): TemplateEntry | null {
  const folder = l.templates;
  // nothing kept (a first list): nothing for a stat to prove, and readTemplate stats the files it opens
  if (folder && !ctx.readOnly.has(name) && ctx.entries.has(name)) {
    const hasCopy = folder.copies.has(name);
    const dotted = folder.dotted.has(name);
    if (hasCopy || dotted) {
      // a marker or intent is stat'd only when the look saw one for this name
      const copy = hasCopy ? lstatSyncOrNull(`${folder.dir}/${name}.yaml`) : null;
      const marker = dotted && folder.entries.has(`.${name}.shipped`) ? lstatSyncOrNull(`${folder.dir}/.${name}.shipped`) : null;
      const intent = dotted && folder.entries.has(templateIntentFile(name)) ? lstatSyncOrNull(`${folder.dir}/${templateIntentFile(name)}`) : null;
      const kept = ctx.entries.get(name, copy, marker, intent);
      const outline = kept && ctx.memo.outline(name, kept.facts.hash, l);
      if (kept && outline) return entryOf(kept.facts, outline);
    }
  }
  const r = readTemplate(ctx, name, folder);
  if (!r) return null;
  const outline = r.unreadable ? UNREADABLE : ctx.memo.outlineOf(name, r.source, r.facts.hash, l);
  if (r.stats) ctx.entries.set(name, r.stats, r.readAt, r.facts);
  else ctx.entries.forget(name);
  return entryOf(r.facts, outline);
}

const HEAD = Buffer.alloc(64);

/**
 * Whether a marker's first line is `hash`, from its first 64 bytes alone
 * (open, read, close: no stat, no parse). Then its copy is not behind that
 * version whether or not the rest parses: a marker that does not parse
 * counts as none, and no copy without a marker is behind. Anything odd at
 * the path (a FIFO, a folder, a link) answers false, and the caller reads
 * the name as readTemplate does, which judges it.
 */
function markerNames(path: string, hash: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    return readSync(fd, HEAD, 0, 64, 0) === 64 && HEAD.toString('latin1') === hash;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * A name's files read as readTemplate reads them, unless what is already
 * known says its copy is not behind the shipped version (an upgrade plan's
 * question, upgrade/plan.ts): no copy in the look; the kept facts, proved
 * by stat as the list proves them; or, with no intent pending, a marker
 * that names today's shipped version (no state behind it has one). Only the
 * rest are read, and their facts kept for the list.
 */
export function readIfBehind(ctx: LibraryContext, name: string, l: Look, behind: (s: TemplateFacts['state']) => boolean): TemplateRead | null {
  const folder = l.templates;
  const shipped = ctx.shipped.templates.get(name);
  if (!folder || !shipped || ctx.readOnly.has(name) || !folder.copies.has(name)) return null;
  const dotted = folder.dotted.has(name);
  const hasMarker = dotted && folder.entries.has(`.${name}.shipped`);
  const hasIntent = dotted && folder.entries.has(templateIntentFile(name));
  // no marker, and none an intent could bring: `edited` or the shipped bytes, never behind
  if (!hasMarker && !hasIntent) return null;
  // stat'd only when something is kept to prove (a library just opened has nothing yet)
  const kept =
    ctx.entries.has(name) &&
    ctx.entries.get(
      name,
      lstatSyncOrNull(`${folder.dir}/${name}.yaml`),
      hasMarker ? lstatSyncOrNull(`${folder.dir}/.${name}.shipped`) : null,
      hasIntent ? lstatSyncOrNull(`${folder.dir}/${templateIntentFile(name)}`) : null,
    );
  if (kept && !behind(kept.facts.state)) return null;
  if (!kept && !hasIntent && markerNames(`${folder.dir}/.${name}.shipped`, shipped.hash)) return null;
  const r = readTemplate(ctx, name, folder);
  if (r?.stats) ctx.entries.set(name, r.stats, r.readAt, r.facts);
  return r;
}

/** Yield to the event loop after this much synchronous work, so a list of thousands never stalls other requests. */
const SLICE_MS = 8;

export async function listTemplates(ctx: LibraryContext): Promise<TemplateEntry[]> {
  const l = look(ctx);
  const out: TemplateEntry[] = [];
  let sliceStart = performance.now();
  for (const name of [...l.catalogue.templates].sort()) {
    const e = listed(ctx, name, l);
    if (e) out.push(e);
    if ((out.length & 63) === 0 && performance.now() - sliceStart > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  return out;
}

/** A read template in full: its validation from the memo. */
function detailOf(ctx: LibraryContext, r: TemplateRead, l: CatalogueGen): TemplateDetail {
  const why = ctx.diverged.templates.get(r.facts.name);
  const rest = { source: r.source, shipped_source: r.shippedSource, ...(why ? { diverged: why } : {}) };
  if (r.unreadable) return { ...r.facts, ...UNREADABLE, ...rest, problems: [r.unreadable], model: null };
  const { outline, validation } = ctx.memo.whole(r.facts.name, r.source, r.facts.hash, l);
  return { ...r.facts, ...outline, ...rest, problems: validation.problems, model: validation.template };
}

/** What a card is diffed against, and that text's sha256. */
interface Against {
  against: CardAgainst;
  hash: string;
}

/** The facts of `name`, when the stats of its copy, marker and intent prove the kept ones (entry-cache.ts, as the list proves them); else null. */
function keptFacts(ctx: LibraryContext, name: string, folder: Folder): TemplateFacts | null {
  if (!folder || ctx.readOnly.has(name) || !ctx.entries.has(name)) return null;
  const at = (file: string) => lstatSyncOrNull(`${folder.dir}/${file}`);
  return ctx.entries.get(name, at(`${name}.yaml`), at(`.${name}.shipped`), at(templateIntentFile(name)))?.facts ?? null;
}

/** readTemplate, its facts kept for the next read and list when its files' stats can prove them. */
function readAndKeep(ctx: LibraryContext, name: string, folder: Folder): TemplateRead | null {
  const r = readTemplate(ctx, name, folder);
  if (r?.stats) ctx.entries.set(name, r.stats, r.readAt, r.facts);
  return r;
}

/**
 * The card diffs against the header's base when the library holds it; else,
 * for an operator copy of a shipped template, today's shipped bytes; else
 * nothing.
 */
function againstOf(ctx: LibraryContext, facts: TemplateFacts, base: string | null, folder: Folder): Against | null {
  const name = facts.name;
  if (base && base !== name && isTemplateName(base)) {
    const b = readAndKeep(ctx, base, folder);
    if (b) return { against: { name: base, kind: 'base', source: b.source }, hash: b.facts.hash };
  }
  const shipped = ctx.shipped.templates.get(name);
  if (shipped && facts.state !== 'shipped') return { against: { name, kind: 'shipped', source: shipped.text }, hash: shipped.hash };
  return null;
}

/** What againstOf would diff against, from kept facts alone: its kind, name and sha256; null for nothing; undefined when only reading can tell. */
function keptAgainst(ctx: LibraryContext, facts: TemplateFacts, base: string | null, folder: Folder): [string, string, string] | null | undefined {
  const name = facts.name;
  if (base && base !== name && isTemplateName(base)) {
    const b = keptFacts(ctx, base, folder);
    // not kept: a base never read yet, or none at all (then the shipped bytes are diffed): read
    return b ? ['base', base, b.hash] : undefined;
  }
  const shipped = ctx.shipped.templates.get(name);
  return shipped && facts.state !== 'shipped' ? ['shipped', name, shipped.hash] : null;
}

/**
 * The answer memo's key (answer-memo.ts): everything a template's answer
 * with its card is made of. `facts` are decided by the copy's sha256, its
 * marker (and intent) and the shipped version; `refs`, what both
 * validations asked the catalogue and were told.
 */
function answerKey(ctx: LibraryContext, facts: TemplateFacts, against: [string, string, string] | null, own: string, theirs: string | null): string {
  const shipped = ctx.shipped.templates.get(facts.name)?.hash ?? '-';
  const why = ctx.diverged.templates.get(facts.name);
  // one line each: names are pattern-checked, hashes hex, and refs JSON (no raw line break), so no part can pass for another
  return [
    facts.name,
    facts.state,
    facts.edited_outside,
    facts.shipped,
    facts.read_only,
    facts.hash,
    shipped,
    against ? against.join(' ') : '-',
    own,
    theirs ?? '-',
    why ? JSON.stringify(why) : '-',
  ].join('\n');
}

/**
 * The kept answer of `name`, proven without reading a file: its facts and
 * its base's by stat, both validations by their kept refs. Null when any of
 * it cannot be proven so; the caller then reads.
 */
function keptAnswer(ctx: LibraryContext, name: string, l: CatalogueGen, folder: Folder): TemplateDetail | null {
  const facts = keptFacts(ctx, name, folder);
  const own = facts && ctx.memo.proven(name, facts.hash, l);
  if (!facts || !own?.refs) return null;
  const a = keptAgainst(ctx, facts, own.outline.base, folder);
  if (a === undefined) return null;
  const theirs = a && ctx.memo.proven(undefined, a[2], l);
  if (a && !theirs?.refs) return null;
  return ctx.answers.get(name, answerKey(ctx, facts, a, own.refs, theirs?.refs ?? null));
}

/**
 * A read template with its card: the kept answer when the key made from
 * what was read finds one (a file read again within the racy window, or
 * saved and then read), else built — its validations from the memo — and
 * kept. A validation that walked a whole set of names cannot be keyed on
 * its refs: such an answer is not kept.
 */
function answerOf(ctx: LibraryContext, r: TemplateRead, l: CatalogueGen, folder: Folder): TemplateDetail {
  const name = r.facts.name;
  if (r.unreadable) {
    const d = detailOf(ctx, r, l);
    d.card = buildCard(d.source, { name }, l.catalogue, null, ctx.memo.validator(l));
    return d;
  }
  const own = ctx.memo.whole(name, r.source, r.facts.hash, l);
  const a = againstOf(ctx, r.facts, own.outline.base, folder);
  // proven here, once: the card's validator finds both under this look without asking again
  const theirs = a ? ctx.memo.whole(undefined, a.against.source, a.hash, l).refs : null;
  const key = own.refs !== null && (!a || theirs !== null) ? answerKey(ctx, r.facts, a && [a.against.kind, a.against.name, a.hash], own.refs, theirs) : null;
  const kept = key === null ? null : ctx.answers.get(name, key);
  if (kept) return kept;
  const d = detailOf(ctx, r, l);
  d.card = buildCard(d.source, { name }, l.catalogue, a?.against ?? null, ctx.memo.validator(l));
  if (key !== null) ctx.answers.set(name, key, d);
  return d;
}

/**
 * One template in full. Its files are opened by name and the catalogue is
 * asked name by name (look.ts pointCatalogue), so a read or a save's answer
 * costs the same in a library of ten templates or ten thousand; the list
 * takes the whole look. With its card, the answer is the kept one while
 * the stats of its files and its base's, and the memo's refs, prove that
 * nothing it is made of changed: no file is read then.
 */
export function getTemplate(ctx: LibraryContext, name: string, card = false): TemplateDetail | null {
  const folder = templatesFolder(ctx);
  if (!card) {
    const r = readTemplate(ctx, name, folder);
    return r && detailOf(ctx, r, pointLook(ctx));
  }
  const l = pointLook(ctx);
  const kept = keptAnswer(ctx, name, l, folder);
  if (kept) return kept;
  const r = readAndKeep(ctx, name, folder);
  return r && answerOf(ctx, r, l, folder);
}

/** The templates folder, its files opened by name (ENOENT when absent); null when there is none to read. */
function templatesFolder(ctx: LibraryContext): Folder {
  const found = ctx.fs ? safeDirSync(ctx.fs, [TEMPLATES]) : null;
  return found && { dir: found.dir, entries: null };
}

/** What loads for a name now, without validation (a write's `before`, and whether it landed). */
export function readFacts(ctx: LibraryContext, name: string): TemplateRead | null {
  return readTemplate(ctx, name, templatesFolder(ctx));
}
