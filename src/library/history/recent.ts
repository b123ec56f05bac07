/**
 * The library's recent commits across names (docs/api.md, History), each
 * with the names it changed.
 */
import type { RecentAnswer } from '../../schema/history.js';
import { rel, roleFile, ROLES, templateCopy, unitOf } from '../layout.js';
import { historyOf, type NameKind, onePage, type PageQuery, type VersionsLibrary } from './versions.js';

export interface ChangedName {
  kind: NameKind;
  name: string;
}

/**
 * The name a changed path counts for: a template by its file only (a commit
 * of its marker alone, an acknowledge, changed no text), a role by any path
 * in its folder — a commit from a team's remote may hold files the service
 * never writes there. Kept bases, proposal records and the rest are no name.
 */
function nameOf(path: string): ChangedName | null {
  const u = unitOf(path);
  if (u?.kind === 'template') return path === rel(templateCopy(u.name)) ? { kind: 'template', name: u.name } : null;
  if (u?.kind === 'role') return { kind: 'role', name: u.name };
  const [top, folder, ...rest] = path.split('/');
  const roleFolder = top === ROLES && folder !== undefined && rest.length > 0 && unitOf(rel(roleFile(folder, 'role.md')))?.kind === 'role';
  return roleFolder ? { kind: 'role', name: folder } : null;
}

/** Which names a commit's paths are, each once, in the order of its (sorted) paths. */
export function namesOf(paths: readonly string[]): ChangedName[] {
  const seen = new Map<string, ChangedName>();
  for (const p of paths) {
    const n = nameOf(p);
    if (n) seen.set(`${n.kind}:${n.name}`, n);
  }
  return [...seen.values()];
}

/** A page of the library's commits, newest first, with the names each changed. */
export async function recentPage(library: Pick<VersionsLibrary, 'history'>, page: PageQuery): Promise<RecentAnswer> {
  const h = historyOf(library);
  await h.settle();
  const got = await onePage(h, page, (p) => h.recent(p));
  return {
    commits: got.items.map((e) => ({ commit: e.commit, at: e.at, author: e.author, who: e.who, message: e.message, names: namesOf(e.paths) })),
    next: got.next,
    cursor: got.cursor,
  };
}
