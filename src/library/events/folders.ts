import { type FSWatcher, lstatSync, readdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import { isRoleName, isTemplateName } from '../../template/names.js';
import { ROLES, TEMPLATES, unitOf } from '../layout.js';

export type Kind = 'template' | 'role';

/** `templates/.<name>.intent`, `roles/.<name>.intent`: a write under way, which readers apply (disk/intents.ts). */
const INTENT = /^(templates|roles)\/\.(.+)\.intent$/;

/**
 * The template or role whose loaded state a root-relative file can change:
 * its files (layout.ts unitOf) or its pending intent. Null for everything
 * else (temp files, kept bases, proposals, notes).
 */
export function touchedBy(path: string): { kind: Kind; name: string } | null {
  const unit = unitOf(path);
  if (unit) return unit.kind === 'plain' ? null : unit;
  const m = INTENT.exec(path);
  if (!m) return null;
  const kind = m[1] === TEMPLATES ? 'template' : 'role';
  return (kind === 'template' ? isTemplateName(m[2]!) : isRoleName(m[2]!)) ? { kind, name: m[2]! } : null;
}

/** What the folder watches tell. */
export interface FolderEvents {
  /** a file of this template or role changed (or its role folder came or went) */
  file(kind: Kind, name: string): void;
  /** any name of the kind may have changed: its folder came, went or was replaced, or an event named no file */
  folder(kind: Kind): void;
}

/** An open watch and the folder's inode, so a folder replaced under the same name is watched again. */
interface Watch {
  handle: FSWatcher;
  ino: bigint;
  /** closed after an error: counts as no watch, and the next reconcile opens another */
  dead: boolean;
}

/**
 * The inotify watches of one library root: the root itself (for
 * `templates/` and `roles/` coming and going), `templates/`, `roles/`, and
 * each role's folder — inotify sees one folder's entries, not its
 * subfolders', so every role folder has a watch of its own, opened when the
 * folder appears and closed when it goes. Only real folders are watched: a
 * link is never followed, as the library never follows one.
 */
export class FolderWatches {
  private rootWatch: Watch | null = null;
  private templates: Watch | null = null;
  private roles: Watch | null = null;
  private readonly roleDirs = new Map<string, Watch>();
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly events: FolderEvents,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** open handles, for tests and stats */
  get count(): number {
    return [this.rootWatch, this.templates, this.roles, ...this.roleDirs.values()].filter((w) => w && !w.dead).length;
  }

  open(): void {
    this.rootWatch?.handle.close();
    this.rootWatch = this.openAt([], (file) => {
      // the root's other entries (the lock, .git, notes) change nothing that loads
      if ((file === null || file === TEMPLATES) && !this.same(this.templates, [TEMPLATES])) this.reopenTemplates();
      if ((file === null || file === ROLES) && !this.same(this.roles, [ROLES])) this.reopenRoles();
    });
    this.reopenTemplates(false);
    this.reopenRoles(false);
  }

  /**
   * Makes the watches match the folders as they are now: what a relist runs,
   * for a folder whose event was missed. A folder replaced since (another
   * inode) is watched again.
   */
  reconcile(): void {
    if (this.closed) return;
    if (!this.same(this.rootWatch, [])) {
      this.open();
      return;
    }
    if (!this.same(this.templates, [TEMPLATES])) this.reopenTemplates(false);
    if (!this.same(this.roles, [ROLES])) this.reopenRoles(false);
    else this.reconcileRoleDirs();
  }

  close(): void {
    this.closed = true;
    for (const w of [this.rootWatch, this.templates, this.roles, ...this.roleDirs.values()]) w?.handle.close();
    this.rootWatch = this.templates = this.roles = null;
    this.roleDirs.clear();
  }

  private reopenTemplates(tell = true): void {
    this.templates?.handle.close();
    this.templates = this.openAt([TEMPLATES], (file) => {
      const t = file === null ? null : touchedBy(`${TEMPLATES}/${file}`);
      if (file === null) this.events.folder('template');
      else if (t) this.events.file(t.kind, t.name);
    });
    if (tell) this.events.folder('template');
  }

  private reopenRoles(tell = true): void {
    this.roles?.handle.close();
    this.roles = this.openAt([ROLES], (file) => {
      if (file === null) {
        this.reconcileRoleDirs();
        this.events.folder('role');
      } else if (isRoleName(file)) {
        // the role's folder came, went or was replaced: its watch follows, and what loads for it is looked at
        this.reconcileRoleDir(file);
        this.events.file('role', file);
      } else {
        const t = touchedBy(`${ROLES}/${file}`);
        if (t) this.events.file(t.kind, t.name);
      }
    });
    for (const w of this.roleDirs.values()) w.handle.close();
    this.roleDirs.clear();
    this.reconcileRoleDirs();
    if (tell) this.events.folder('role');
  }

  private reconcileRoleDirs(): void {
    if (this.closed) return;
    let names: string[] = [];
    try {
      names = readdirSync(join(this.root, ROLES), { withFileTypes: true })
        .filter((d) => d.isDirectory() && isRoleName(d.name))
        .map((d) => d.name);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ENOTDIR') this.onError(e);
    }
    const want = new Set(names);
    for (const [name, w] of this.roleDirs) {
      if (!want.has(name)) {
        w.handle.close();
        this.roleDirs.delete(name);
      }
    }
    for (const name of want) this.reconcileRoleDir(name);
  }

  private reconcileRoleDir(name: string): void {
    if (this.closed) return;
    const have = this.roleDirs.get(name) ?? null;
    if (this.same(have, [ROLES, name])) return;
    have?.handle.close();
    this.roleDirs.delete(name);
    const w = this.openAt([ROLES, name], (file) => {
      const t = file === null ? null : touchedBy(`${ROLES}/${name}/${file}`);
      if (file === null || t) this.events.file('role', name);
    });
    if (w) this.roleDirs.set(name, w);
  }

  /** Whether `w` watches the real folder at `segs` as it is now (the same inode); no watch and no folder count as the same. */
  private same(w: Watch | null, segs: string[]): boolean {
    const ino = this.folderIno(segs);
    return w === null || w.dead ? ino === null : w.ino === ino;
  }

  private folderIno(segs: string[]): bigint | null {
    try {
      const st = lstatSync(join(this.root, ...segs), { bigint: true });
      return st.isDirectory() ? st.ino : null;
    } catch {
      return null;
    }
  }

  /** A watch on the real folder at `segs`, or null when there is none (missing, a link, a file) or it cannot be watched. */
  private openAt(segs: string[], onFile: (file: string | null) => void): Watch | null {
    if (this.closed) return null;
    const ino = this.folderIno(segs);
    if (ino === null) return null;
    try {
      const handle = watch(join(this.root, ...segs), { encoding: 'utf8' }, (_type, file) => {
        if (!this.closed && !w.dead) onFile(file);
      });
      const w: Watch = { handle, ino, dead: false };
      // a watch that failed is closed; the next relist reconciles (a folder the parent's watch missed, say)
      handle.on('error', (e) => {
        w.dead = true;
        handle.close();
        this.onError(e);
      });
      return w;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.onError(e);
      return null;
    }
  }
}
