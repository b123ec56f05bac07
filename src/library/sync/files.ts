import { join } from 'node:path';
import { removeFileDurable, writeFileAtomic } from '../disk/atomic-write.js';
import type { LibraryContext, WriteGuard } from '../context.js';
import { readNoFollowSync, safeDirSync } from '../disk/fs-safe.js';
import { rolePaths, templatePaths } from '../layout.js';
import { pointLook } from '../look.js';
import { parseMarker, sha256Hex } from '../disk/markers.js';
import type { Door, DoorSwitches, Write } from '../door.js';
import { writeRoleReset, writeRoleSave } from '../roles/files.js';
import { validateKitText, validateRoleMd } from '../roles/validate.js';
import { writeTemplateDelete, writeTemplateReset, writeTemplateSave } from '../templates/files.js';
import type { Recorder } from '../history/recorder.js';
import type { RoleSide, SyncFiles, SyncRound } from './contract.js';
import type { Blob, Outcome, TemplateSide } from './merge.js';
import { type FolderKind, folderOf, roleUnit, templateUnit, type Unit, unitOfFolder } from '../unit.js';

/**
 * The library's side of a sync (docs/history.md, Sync): this desk's files of
 * one name read, the sync's decision taken, and its files written — all inside
 * the name's slot, through the one door (door.ts) and the same atomic writes
 * and intents as a save, so a save and a sync never interleave on one name.
 * What a round's step wrote is added to the round's one commit (recorder.ts)
 * before the slot passes on.
 * Built by openLibrary and reached as `library.syncFiles`; sync/sync.ts
 * drives it.
 */

class OddFile extends Error {}

export function syncFiles(ctx: LibraryContext, guard: WriteGuard, door: Door, recorder: Recorder): SyncFiles & { resolved(u: Unit): void } {
  const listeners = new Set<(kind: FolderKind, name: string) => void>();
  const plainListeners = new Set<(paths: string[]) => Promise<void>>();
  const roundListeners = new Set<(running: boolean) => void>();
  const told = (running: boolean) => {
    for (const l of [...roundListeners]) l(running);
  };
  /** A file as it is on disk; a link, folder or other odd thing stops the sync of its name. */
  const read = (path: string): Blob => {
    const fs = guard.writable();
    const segs = path.split('/');
    const dir = safeDirSync(fs, segs.slice(0, -1));
    if (!dir) return null;
    const r = readNoFollowSync(join(dir.dir, segs[segs.length - 1]!));
    if (r.kind === 'missing') return null;
    if (r.kind !== 'file') throw new OddFile(path);
    return r.bytes;
  };
  const put = async (path: string, bytes: Blob) => {
    const fs = guard.writable();
    if (bytes === null) await removeFileDurable(fs, path.split('/'), 'sync:remove');
    else await writeFileAtomic(fs, path.split('/'), bytes, 'sync:write');
  };
  /** odd files are left as they are, like every write refuses them */
  async function guarded<S>(task: () => Promise<Outcome<S>>): Promise<Outcome<S>> {
    try {
      return await task();
    } catch (e) {
      if (e instanceof OddFile) {
        ctx.logger.warn({ path: e.message }, 'sync left an odd file alone');
        return { kind: 'keep' };
      }
      throw e;
    }
  }

  /** A version of a template's files taken from the remote, through the same atomic writes and intents as a save. */
  async function writeTemplate(name: string, { yaml, marker }: TemplateSide): Promise<void> {
    const fs = guard.writable();
    const [yamlPath, markerPath] = templatePaths(name);
    const shipped = ctx.shipped.templates.get(name) ?? null;
    const m = marker && parseMarker(marker.toString('utf8'));
    if (yaml === null) {
      // the remote removed its copy: a shipped name loads its shipped bytes again
      await (shipped ? writeTemplateReset(fs, name) : writeTemplateDelete(fs, name));
    } else if (shipped && m?.copy !== undefined && m.copy === sha256Hex(yaml)) {
      // file and marker under one intent, as a save writes them
      await writeTemplateSave(fs, name, yaml.toString('utf8'), shipped, { shipped: m.shipped, copy: m.copy });
    } else {
      // a copy changed outside the service on the other desk, or no marker: two atomic writes,
      // the copy first, so a crash between them reads edited_outside, never a wrong copy
      await put(yamlPath, yaml);
      await put(markerPath, marker);
    }
    ctx.entries.forget(name);
  }

  async function writeRole(name: string, f: RoleSide): Promise<void> {
    const fs = guard.writable();
    if (f.role_md === null) await writeRoleReset(fs, name);
    else await writeRoleSave(fs, name, { op: 'save', role_md: f.role_md.toString('utf8'), kit: f.kit?.toString('utf8') ?? null, marker: f.marker?.toString('utf8') ?? null });
  }

  /** The name's own files as they are on disk (path → bytes, null: none), read in its slot; an odd file reads as none. */
  const ownNow = (u: Unit): Map<string, Blob> =>
    new Map(
      (u.kind === 'template' ? templatePaths(u.name) : rolePaths(u.name)).map((p) => {
        try {
          return [p, read(p)] as const;
        } catch {
          return [p, null] as const;
        }
      }),
    );

  /** The files a sync writes for a name: a template's or a role's side. */
  const write = (u: Unit, files: TemplateSide | RoleSide): Promise<void> => (u.kind === 'template' ? writeTemplate(u.name, files as TemplateSide) : writeRole(u.name, files as RoleSide));

  /**
   * A person's decision on a diverged name (take theirs, keep mine), in its
   * slot: its files as they end up are committed as an ordinary change, with
   * the sync's message. Answers this desk's files as they were before, so a
   * copy take theirs replaced is kept (history/own.ts). Its switches: no
   * found-on-disk (the copy is the undecided one) and no settling of the
   * mark (sync's state clears it, sync/sync.ts), no event (sync publishes).
   */
  async function decided(kind: FolderKind, name: string, files: TemplateSide | RoleSide | null, message: string, who: string | null): Promise<Map<string, Blob>> {
    const u = unitOfFolder(kind, name);
    return door.run<Map<string, Blob>, Map<string, Blob>>(
      {
        unit: u,
        standing: () => ownNow(u),
        files: () => (files ? { run: () => write(u, files) } : null),
        after: (before) => ({ answer: before, subject: message, who }),
      },
      { found: false, settle: false, announce: false },
    );
  }

  const round = (): SyncRound => {
    const record = recorder.round();
    told(true);
    /**
     * A round's per-name write, through the door. Its switches: found-on-disk
     * only where the round asks (its base says this desk's copy is not in
     * history), the files into the round's one merge commit, no settling of a
     * diverged mark (the round sets them all at its end) and no event (the
     * watcher looks once per round).
     */
    const step = <S, F extends TemplateSide | RoleSide>(u: Unit, now: () => S, decide: (now: S) => Outcome<F>, o: { found: boolean }): Promise<Outcome<F>> => {
      let out: Outcome<F> = { kind: 'keep' };
      const w: Write<S, Outcome<F>> = {
        unit: u,
        standing: now,
        files: (_fs, before) => {
          out = decide(before);
          return out.kind === 'write' ? { run: () => write(u, (out as Extract<Outcome<F>, { kind: 'write' }>).files) } : null;
        },
        after: () => ({ answer: out, subject: out.kind === 'write' ? '' : null, who: null }),
      };
      const sw: DoorSwitches = { found: o.found, settle: false, commit: (key) => record.step(key), announce: false };
      return guarded(() => door.run(w, sw));
    };
    return {
    template(name, decide, o) {
      guard.writable();
      // a name code registers read-only is never written, whatever the remote holds under it
      if (ctx.readOnly.has(name)) return Promise.resolve({ kind: 'keep' });
      const [yamlPath, markerPath] = templatePaths(name);
      return step(templateUnit(name), () => ({ yaml: read(yamlPath), marker: read(markerPath) }), decide, o);
    },
    role(name, decide, o) {
      const [md, kit, marker] = rolePaths(name);
      return step(roleUnit(name), () => ({ role_md: read(md), kit: read(kit), marker: read(marker) }), decide, o);
    },
    plain(path, decide) {
      return guarded(async () => {
        const out = decide(read(path));
        if (out.kind === 'write') {
          await put(path, out.files.file);
          record.stepPath(path);
        }
        return out;
      });
    },
    finish: (c) => {
      record.finish(c);
      told(false);
    },
    abandon: () => {
      record.abandon();
      told(false);
    },
    };
  };

  return {
    round,
    shipped: (name) => ctx.shipped.templates.get(name) ?? null,
    valid: (name, source) => ctx.memo.whole(name, source, sha256Hex(source), pointLook(ctx)).validation.valid,
    problems: (name, source) =>
      ctx.memo
        .whole(name, source, sha256Hex(source), pointLook(ctx))
        .validation.problems.filter((p) => p.severity === 'error')
        .map(({ code, message }) => ({ code, message })),
    roleProblems: (roleMd, kit) =>
      [...validateRoleMd(roleMd.toString('utf8')), ...validateKitText(kit?.toString('utf8') ?? null).problems].map(({ code, message }) => ({ code, message })),
    divergedWhy: (kind, name) => ctx.diverged[kind].get(name) ?? null,
    setDiverged(names) {
      const before = ctx.diverged;
      ctx.diverged = { templates: new Map(names.templates), roles: new Map(names.roles) };
      // the list keeps facts keyed on file stats: a name whose diverged mark changed is read again
      for (const n of new Set([...before.templates.keys(), ...ctx.diverged.templates.keys()])) ctx.entries.forget(n);
    },
    onResolved(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onRound(listener) {
      roundListeners.add(listener);
      return () => roundListeners.delete(listener);
    },
    onPlainWritten(listener) {
      plainListeners.add(listener);
      return () => plainListeners.delete(listener);
    },
    async plainWritten(paths) {
      if (paths.length) await Promise.all([...plainListeners].map((l) => l(paths).catch((e: unknown) => ctx.logger.error({ err: (e as Error).message }, 'a reader of synced files failed'))));
    },
    decided,
    own: (kind, name) => door.slot(unitOfFolder(kind, name), async () => ownNow(unitOfFolder(kind, name))),
    resolved(u) {
      const kind = folderOf(u.kind);
      const next = { templates: new Map(ctx.diverged.templates), roles: new Map(ctx.diverged.roles) };
      next[kind].delete(u.name);
      ctx.diverged = next;
      ctx.entries.forget(u.name);
      for (const l of [...listeners]) l(kind, u.name);
    },
  };
}
