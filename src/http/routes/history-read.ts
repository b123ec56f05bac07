/**
 * What the history routes share (docs/api.md, History): the history API
 * or a coded refusal, the page bounds, and each version read as the name
 * would load it (its ETag, its state against today's shipped version).
 */
import { DeskError } from '../../errors.js';
import { canonicalJson } from '../../library/roles/canonical.js';
import type { HistoryApi, LogEntry } from '../../library/history/types.js';
import { etagOf, roleRevision, sha256Hex } from '../../library/disk/markers.js';
import type { Library, RoleEntry } from '../../library/types.js';
import { HISTORY_LIMITS, type Version, type VersionState } from '../../schema/history.js';

/** The library's history, or 503 history_unavailable when git is missing (or the library has no root). */
export function historyOf(library: Library): HistoryApi {
  const h = library.history;
  if (!h?.enabled) throw new DeskError('history_unavailable', `the library keeps no history: ${h?.disabled ?? 'no history here'}`);
  return h;
}

/** `?limit=` as a number within its bounds; the schema has checked it is digits. */
export function pageLimit(raw: string | undefined): number {
  if (raw === undefined) return HISTORY_LIMITS.defaultLimit;
  const n = Number(raw);
  if (n < 1 || n > HISTORY_LIMITS.maxLimit) throw new DeskError('bad_request', `querystring/limit must be 1 to ${HISTORY_LIMITS.maxLimit}`);
  return n;
}

/**
 * One page of commits, newest first. One more than asked is read, so the
 * answer knows whether a next page exists: `next` is then the last commit
 * shown, which the next request passes as `before` (exclusive).
 */
export async function onePage<T extends { commit: string }>(read: (limit: number) => Promise<T[]>, limit: number): Promise<{ items: T[]; next: string | null }> {
  const got = await read(limit + 1);
  const items = got.slice(0, limit);
  return { items, next: got.length > limit ? (items.at(-1)?.commit ?? null) : null };
}

export const templatePath = (name: string) => `templates/${name}.yaml`;
export const roleDir = (name: string) => `roles/${name}`;

/** The ETag a template would answer with when these bytes load: as GET computes it. */
export function templateEtag(source: string): string {
  return etagOf(sha256Hex(Buffer.from(source, 'utf8')));
}

export function templateVersionState(source: string | null, shippedSource: string | null): VersionState {
  if (source === null) return shippedSource === null ? 'deleted' : 'shipped';
  if (shippedSource === null) return 'custom';
  return source === shippedSource ? 'same_as_shipped' : 'edited';
}

export interface RoleFiles {
  role_md: string;
  kit_json: string | null;
}

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

export function versionOf(e: LogEntry, state: VersionState, etag: string | null): Version {
  return { commit: e.commit, at: e.at, author: e.author, who: e.who, message: e.message, state, etag };
}

/** The 404 of a version that is not there: an unknown commit, or one where the name had no copy. */
export function noVersion(kind: 'template' | 'role', name: string, commit: string): DeskError {
  return new DeskError('version_not_found', `no version of the ${kind} '${name}' at ${commit}: an unknown commit, or one where it had no copy (reset or deleted)`);
}

/** The message a restore's commit carries: `restore quick-fix to 1a2b3c4`. */
export const shortCommit = (commit: string) => commit.slice(0, 7);

const COMMIT = /^[0-9a-f]{7,40}$/;

/** `?against=version:<commit>` on a diff: the template's bytes at that commit, or a coded refusal. */
export async function versionSource(library: Library, name: string, commit: string): Promise<{ commit: string; source: string }> {
  if (!COMMIT.test(commit)) throw new DeskError('bad_request', `against 'version:${commit}' does not name a commit (7 to 40 lowercase hex digits)`);
  const source = await historyOf(library).show(templatePath(name), commit);
  if (source === null) throw noVersion('template', name, commit);
  return { commit, source };
}
