import { isRoleName, isTemplateName } from '../../template/names.js';
import type { LibraryLogger } from '../context.js';
import { type FsContext, lstatSyncOrNull } from '../disk/fs-safe.js';
import { readEntry, removeEntry, writeEntryDurable } from '../disk/journal.js';
import { Journal, toEntry } from '../history/journal.js';
import { readName, readPaths } from '../history/snapshot.js';
import { gitDirOf, keptBase, keptRoleBase, rel, roleFile, templateMarker, UPGRADE_ENTRY } from '../layout.js';
import { unitKey } from '../unit.js';

/**
 * An upgrade under way (docs/operations.md, Upgrading): the names it moves,
 * each with the shipped version its marker names before (`from`) and the
 * one it moves onto (`to`), in the journal's upgrade entry (disk/journal.ts) — written durably
 * before the first file and removed once the one commit is queued (history
 * keeps queued commits across a crash, history/journal.ts). Only on a root
 * that keeps history (a `.git` folder): without one there is no commit to owe. A kill in
 * between leaves copies upgraded on disk and no commit: the next start,
 * before history looks for changes made on disk, queues the upgrade's one
 * entry for the names whose marker moved, instead of `found on disk`.
 *
 * A name's `base` is the kept shipped base the upgrade writes for it (the
 * version it moves onto), when none was kept as it began: written before the
 * copy, it may be all a kill left of that name. The entry holds every such
 * base on disk, whether its copy moved or not, so none is committed later
 * as a change found on disk.
 */
export interface UpgradeJournal {
  names: { kind: 'template' | 'role'; name: string; from: string | null; to: string; base?: string | null }[];
  who: string | null;
}

/** History runs only where `.git` is a folder (history/repo.ts gitDirKind). */
const keepsHistory = (fs: FsContext): boolean => lstatSyncOrNull(gitDirOf(fs.root))?.isDirectory() === true;

/** The shipped version a copy's marker names now (first line), or null with no marker. */
export function markerShipped(fs: FsContext, kind: 'template' | 'role', name: string): string | null {
  const p = rel(kind === 'template' ? templateMarker(name) : roleFile(name, '.shipped'));
  return readPaths(fs, [p]).get(p)?.toString('utf8').split('\n')[0] ?? null;
}

/** The kept base a copy moving onto `to` stands on (root-relative), or null when one is kept already: only a new one is the upgrade's. */
export function newBase(fs: FsContext, kind: 'template' | 'role', to: string): string | null {
  const p = rel(kind === 'template' ? keptBase(to) : keptRoleBase(to));
  return readPaths(fs, [p]).get(p) ? null : p;
}

/** Durable before it returns; a root with no `.git` folder keeps no history, so no entry either. */
export async function saveUpgrade(fs: FsContext, j: UpgradeJournal): Promise<void> {
  if (keepsHistory(fs)) await writeEntryDurable(fs.root, UPGRADE_ENTRY, 'upgrade', j);
}

export async function clearUpgrade(fs: FsContext): Promise<void> {
  removeEntry(fs.root, UPGRADE_ENTRY);
}

async function loadUpgrade(fs: FsContext): Promise<UpgradeJournal | null> {
  try {
    const j = readEntry(fs.root, UPGRADE_ENTRY, 'upgrade') as Partial<UpgradeJournal> | null;
    if (!j) return null;
    const ok = (n: UpgradeJournal['names'][number]) => (n.kind === 'template' ? isTemplateName(n.name) : n.kind === 'role' && isRoleName(n.name));
    const names = Array.isArray(j.names) ? j.names.filter(ok) : [];
    // a base is a path this file names: only a kept base's own, never another path
    for (const n of names) if (n.base !== undefined && n.base !== null && n.base !== rel(n.kind === 'template' ? keptBase(n.to) : keptRoleBase(n.to))) n.base = null;
    return { names, who: typeof j.who === 'string' ? j.who : null };
  } catch {
    return null;
  }
}

/** At a start, after recovery and before history opens: the entry an upgrade cut short owes, queued as history replays it. */
export async function finishUpgrade(fs: FsContext, logger: LibraryLogger, subject: (n: number) => string): Promise<void> {
  const j = await loadUpgrade(fs);
  if (!j) return;
  try {
    const moved = j.names.filter((n) => markerShipped(fs, n.kind, n.name) !== n.from);
    // the new bases it wrote, whether their copies moved or not (above)
    const bases = [...readPaths(fs, j.names.flatMap((n) => (n.base ? [n.base] : [])))].filter(([, b]) => b !== null);
    if (moved.length || bases.length) {
      // what the apply commits: a template's files with its kept base, a role's files with its own
      const files = moved.flatMap((n) => [...(n.kind === 'template' ? readName(fs, unitKey({ kind: 'template', name: n.name })) : readName(fs, unitKey({ kind: 'role', name: n.name })))]);
      const snapshot = new Map([...bases, ...files]);
      if (keepsHistory(fs)) new Journal(fs.root, logger).write(toEntry(snapshot, subject(moved.length), j.who, Date.now()));
      logger.warn({ upgraded: moved.length, bases: bases.length }, 'an upgrade was cut short after its files: its history entry is committed now');
    }
  } catch (e) {
    // never a refused start: what is left is committed as `found on disk`
    logger.warn({ err: (e as Error).message }, 'an upgrade cut short could not be finished in history');
  }
  await clearUpgrade(fs);
}
