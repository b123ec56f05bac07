/**
 * The history of one name (docs/api.md, History; docs/history.md): its
 * versions newest first, each as it would load (its state against today's
 * shipped version, its ETag); one version's files; a restore, which is an
 * ordinary save of those files committed as `restore <name> to <short>`;
 * and a role diffed against one of its versions. Alike for templates and
 * roles: what differs — which files a version is, how they would load, how
 * they are saved again — is each kind's (`templateVersions`, `roleVersions`).
 *
 * A version's state (schema/history.ts VERSION_STATES) is its bytes against
 * today's shipped version: the first rule of state.ts decideState (a copy
 * equal to shipped is same_as_shipped, whatever its marker) and, as there
 * for a copy with no marker, edited otherwise. Texts are compared as they
 * are, with no hash to compute per version of a page.
 */
import { DeskError } from '../../errors.js';
import type { RoleDiff, Version as VersionAnswer, VersionState } from '../../schema/history.js';
import { lineDiff } from '../../template/diff.js';
import { etagOf, parseMarker, roleRevision, sha256Hex } from '../disk/markers.js';
import { rel, roleDir, roleFile, templateCopy, templateMarker } from '../layout.js';
import { canonicalJson } from '../roles/canonical.js';
import { validateKitText } from '../roles/validate.js';
import type { LibraryReads, LibraryWrites, RoleEntry, TemplateDetail, WriteOptions } from '../entries.js';
import { checkRoleName, checkTemplateName } from '../layout.js';
import { parsePinned, pinnedAt } from './read.js';
import type { History, Page, Version } from './types.js';

export type NameKind = 'template' | 'role';

/** What the versions and their restores use of the library (types.ts, Library): two reads, two writes, its history. */
export type VersionsLibrary = Pick<LibraryReads, 'getTemplate' | 'getRole'> & Pick<LibraryWrites, 'saveTemplate' | 'saveRole'> & { readonly history: History };

/** A role's files at one commit. */
export interface RoleFiles {
  role_md: string;
  kit_json: string | null;
}

/** What a restore passes on to the save: its preconditions, who asked, and (templates) whether to answer with the card. */
export type RestoreOptions = Pick<WriteOptions, 'ifMatch' | 'who' | 'card'>;

export interface VersionKind<F, N> {
  kind: NameKind;
  /** the path whose commits are the name's versions: a template's file, a role's folder */
  logPath(name: string): string;
  /** the files one version is read from, in order */
  files(name: string): string[];
  /** those files' texts as a version; null when the name had no copy there */
  version(texts: (string | null)[]): F | null;
  /** the name as it loads now; null when nothing does */
  now(library: VersionsLibrary, name: string): Promise<N | null>;
  state(f: F | null, now: N | null): VersionState;
  /** the ETag the version would answer with, as GET computes it */
  etag(f: F): string;
  /** the save's name check, made before any git read */
  checkName(name: string): void;
  /** the version's files saved again, with the save's checks and refusals */
  save(library: VersionsLibrary, name: string, f: F, commit: string, w: RestoreOptions & Pick<WriteOptions, 'restoredFrom'>): Promise<N>;
}

/** The library's history, or 503 history_unavailable when git is missing (or the library has no root). */
export function historyOf(library: Pick<VersionsLibrary, 'history'>): History {
  const h = library.history;
  if (!h?.enabled) throw new DeskError('history_unavailable', `the library keeps no history: ${h?.disabled ?? 'no history here'}`);
  return h;
}

/** The 404 of a version that is not there: an unknown commit, or one where the name had no copy. */
export function noVersion(kind: NameKind, name: string, commit: string): DeskError {
  return new DeskError('version_not_found', `no version of the ${kind} '${name}' at ${commit}: an unknown commit, or one where it had no copy (reset or deleted)`);
}

/** How a commit is named in a restore's commit message and a diff's labels: `1a2b3c4`. */
export const shortCommit = (commit: string) => commit.slice(0, 7);

const COMMIT = /^[0-9a-f]{7,40}$/;

/** `?against=version:<commit>` names a commit (hex only, so nothing reaches git as an option), or 400. */
function checkAgainstCommit(commit: string): void {
  if (!COMMIT.test(commit)) throw new DeskError('bad_request', `against 'version:${commit}' does not name a commit (7 to 40 lowercase hex digits)`);
}

/** A page as a route asks for it: its size and, at most one, where it starts. */
export interface PageQuery extends Page {
  /** the `cursor` of the page before: the same walk, after its last commit */
  cursor?: string;
}

/** A page of commits and where the next one starts: `next` (as `before`) and `cursor`. */
export interface Paged<T> {
  items: T[];
  next: string | null;
  cursor: string | null;
}

/**
 * The position a page reads from, as the readers take it (read.ts): the
 * walk pinned at a head — the cursor's, else HEAD now, read as the first
 * commit of the library's walk — and the commit it starts after, if any.
 * Null when the library has no commit yet, or the cursor is not one.
 */
async function pinnedPage(h: History, page: PageQuery): Promise<{ head: string; before: string } | null> {
  if (page.cursor !== undefined) {
    const c = parsePinned(page.cursor);
    return c?.after ? { head: c.head, before: pinnedAt(c.head, c.after) } : null;
  }
  const head = (await h.recent({ limit: 1 }))[0]?.commit;
  return head ? { head, before: pinnedAt(head, page.before ?? null) } : null;
}

/**
 * One page of commits, newest first. One more than asked is read, so the
 * answer knows whether a next page exists: `next` is then the last commit
 * shown, which the next page passes as `before` (exclusive), and `cursor`
 * the same position in this page's walk.
 */
export async function onePage<T extends { commit: string }>(h: History, page: PageQuery, read: (p: Page) => Promise<T[]>): Promise<Paged<T>> {
  const at = await pinnedPage(h, page);
  if (!at) return { items: [], next: null, cursor: null };
  const got = await read({ limit: page.limit + 1, before: at.before });
  const items = got.slice(0, page.limit);
  const next = got.length > page.limit ? (items.at(-1)?.commit ?? null) : null;
  return { items, next, cursor: next === null ? null : pinnedAt(at.head, next) };
}

function versionOf(e: Version, state: VersionState, etag: string | null): VersionAnswer {
  return { commit: e.commit, at: e.at, author: e.author, who: e.who, message: e.message, shared: e.shared ?? true, state, etag };
}

// ---------------------------------------------------------------- templates

/** The ETag a template would answer with when these bytes load: as GET computes it. */
export function templateEtag(source: string): string {
  return etagOf(sha256Hex(Buffer.from(source, 'utf8')));
}

export function templateVersionState(source: string | null, shippedSource: string | null): VersionState {
  if (source === null) return shippedSource === null ? 'deleted' : 'shipped';
  if (shippedSource === null) return 'custom';
  return source === shippedSource ? 'same_as_shipped' : 'edited';
}

const templatePath = (name: string) => rel(templateCopy(name));

export const templateVersions: VersionKind<string, TemplateDetail> = {
  kind: 'template',
  logPath: templatePath,
  files: (name) => [templatePath(name)],
  version: ([source]) => source ?? null,
  now: (library, name) => library.getTemplate(name),
  state: (source, now) => templateVersionState(source, now?.shipped_source ?? null),
  etag: templateEtag,
  checkName: checkTemplateName,
  save: async (library, name, source, commit, w) => {
    // the version's own marker: a restore keeps the shipped version it was saved against (docs/api.md, restore)
    const marker = await historyOf(library).show(rel(templateMarker(name)), commit);
    const shipped = marker ? parseMarker(marker)?.shipped : undefined;
    return library.saveTemplate(name, source, shipped ? { ...w, restoredShipped: shipped } : w);
  },
};

/** A template's bytes at `commit` (`?against=version:<commit>` on a diff), or a coded refusal. */
export async function templateAt(library: VersionsLibrary, name: string, commit: string): Promise<string> {
  checkAgainstCommit(commit);
  const source = await historyOf(library).show(templatePath(name), commit);
  if (source === null) throw noVersion('template', name, commit);
  return source;
}

// ---------------------------------------------------------------- roles

/** A role's ETag over its revision (role.md, kit.json, whether the kit exists), as GET computes it. */
export function roleEtag(f: RoleFiles): string {
  return etagOf(roleRevision(Buffer.from(f.role_md, 'utf8'), f.kit_json === null ? null : Buffer.from(f.kit_json, 'utf8')));
}

/** Built-in roles ship in canonical form (src/library/roles/canonical.ts), so the same words and tools read the same bytes. */
export function roleVersionState(f: RoleFiles | null, now: RoleEntry | null): VersionState {
  const builtin = now?.shipped_role_md ?? null;
  if (f === null) return builtin === null ? 'deleted' : 'shipped';
  if (builtin === null) return 'custom';
  const kitSame = f.kit_json === null ? now?.shipped_kit === null : now?.shipped_kit != null && f.kit_json === canonicalJson(now.shipped_kit);
  return f.role_md === builtin && kitSame ? 'same_as_shipped' : 'edited';
}

export const roleVersions: VersionKind<RoleFiles, RoleEntry> = {
  kind: 'role',
  logPath: (name) => rel(roleDir(name)),
  files: (name) => [rel(roleFile(name, 'role.md')), rel(roleFile(name, 'kit.json'))],
  version: ([md, kit]) => (md == null ? null : { role_md: md, kit_json: kit ?? null }),
  now: (library, name) => library.getRole(name),
  state: roleVersionState,
  etag: roleEtag,
  checkName: checkRoleName,
  async save(library, name, f, commit, w) {
    // a kit.json edited by hand into that commit may not parse: refused like a save, with its problems
    const kit = validateKitText(f.kit_json);
    if (kit.problems.length) throw new DeskError('invalid_role', `role ${name} at ${shortCommit(commit)} is not valid; nothing was saved`, { problems: kit.problems });
    return library.saveRole(name, f.role_md, kit.kit, w);
  },
};

// ---------------------------------------------------------------- one name

/** One version of a name (one git process for all its files), or null when it had no copy at that commit. */
async function showVersion<F, N>(h: History, k: VersionKind<F, N>, name: string, commit: string): Promise<F | null> {
  return k.version(await h.showMany(k.files(name).map((path) => ({ path, commit }))));
}

/** One version of a name; 404 version_not_found when it had no copy at that commit. */
export async function versionAt<F, N>(library: VersionsLibrary, k: VersionKind<F, N>, name: string, commit: string): Promise<F> {
  const f = await showVersion(historyOf(library), k, name, commit);
  if (f === null) throw noVersion(k.kind, name, commit);
  return f;
}

/**
 * A page of a name's versions, newest first, each with the state and ETag
 * it would load with. Null when the name is not one of its kind: it loads
 * nothing and (on a first page) never had a commit.
 */
export async function versionsPage<F, N>(
  library: VersionsLibrary,
  k: VersionKind<F, N>,
  name: string,
  page: PageQuery,
): Promise<{ versions: VersionAnswer[]; next: string | null; cursor: string | null } | null> {
  const h = historyOf(library);
  const now = await k.now(library, name);
  // read your writes: a save answered a moment ago is in the list
  await h.settle();
  const got = await onePage(h, page, (p) => h.log(k.logPath(name), p));
  if (!now && got.items.length === 0 && !page.before && !page.cursor) return null;
  const files = k.files(name);
  const texts = await h.showMany(got.items.flatMap((e) => files.map((path) => ({ path, commit: e.commit }))));
  const versions = got.items.map((e, i) => {
    const f = k.version(texts.slice(i * files.length, (i + 1) * files.length));
    return versionOf(e, k.state(f, now), f === null ? null : k.etag(f));
  });
  return { versions, next: got.next, cursor: got.cursor };
}

/** A version saved again: validated, atomic and announced like a save, committed as `restore <name> to <short>` (writes.ts subject). */
export async function restoreVersion<F, N>(library: VersionsLibrary, k: VersionKind<F, N>, name: string, commit: string, opts: RestoreOptions): Promise<N> {
  k.checkName(name);
  const f = await versionAt(library, k, name, commit);
  return k.save(library, name, f, commit, { ...opts, restoredFrom: shortCommit(commit) });
}

/**
 * The role as it loads diffed against one of its versions, a unified diff
 * per file (the version is the before side). Null when no role of that name
 * loads.
 */
export async function roleDiff(library: VersionsLibrary, name: string, commit: string): Promise<RoleDiff | null> {
  checkAgainstCommit(commit);
  const h = historyOf(library);
  const now = await library.getRole(name);
  if (!now) return null;
  const then = await showVersion(h, roleVersions, name, commit);
  if (then === null) throw noVersion('role', name, commit);
  // the kit as it loads, in the canonical form a save writes (src/library/roles/canonical.ts)
  const kitNow = now.kit === null ? null : canonicalJson(now.kit);
  const label = (f: string) => [`version/${shortCommit(commit)}/${name}/${f}`, `${name}/${f}`] as const;
  const diff = (f: string, a: string, b: string) => (a === b ? '' : lineDiff(...label(f), a, b));
  return {
    against: { name, kind: 'version' as const, commit },
    identical: then.role_md === now.role_md && then.kit_json === kitNow,
    role_md: diff('role.md', then.role_md, now.role_md),
    kit_json: diff('kit.json', then.kit_json ?? '', kitNow ?? ''),
  };
}
