import { join } from 'node:path';
import { removeFileDurable, writeFileAtomic } from '../disk/atomic-write.js';
import type { LibraryContext, WriteGuard } from '../context.js';
import { readNoFollowSync, safeDirSync } from '../disk/fs-safe.js';
import { rolePaths, templatePaths } from '../layout.js';
import { pointLook } from '../look.js';
import { parseMarker, sha256Hex } from '../disk/markers.js';
import { recoverRole, recoverTemplate } from '../disk/recovery.js';
import { writeRoleReset, writeRoleSave } from '../roles/files.js';
import { validateKitText, validateRoleMd } from '../roles/validate.js';
import { writeTemplateDelete, writeTemplateReset, writeTemplateSave } from '../templates/files.js';
import type { Recorder } from './recorder.js';
import type { RoleSide, SyncFiles, SyncRound } from './sync-contract.js';
import type { Blob, Outcome, TemplateSide } from './sync-merge.js';

/**
 * The library's side of a sync (docs/history.md, Sync): this desk's files of
 * one name read, the sync's decision taken, and its files written — all inside
 * the name's queue slot, through the same atomic writes and intents as a save,
 * so a save and a sync never interleave on one name. What a step wrote is
 * added to the round's one commit (recorder.ts) before the slot passes on.
 * Built by openLibrary and reached as `library.syncFiles`; history/sync.ts
 * drives it.
 */

class OddFile extends Error {}

export function syncFiles(ctx: LibraryContext, guard: WriteGuard, recorder: Recorder): SyncFiles & { resolved(kind: 'templates' | 'roles', name: string): void } {
  const listeners = new Set<(kind: 'templates' | 'roles', name: string) => void>();
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
  const ownNow = (kind: 'templates' | 'roles', name: string): Map<string, Blob> =>
    new Map(
      (kind === 'templates' ? templatePaths(name) : rolePaths(name)).map((p) => {
        try {
          return [p, read(p)] as const;
        } catch {
          return [p, null] as const;
        }
      }),
    );

  /**
   * A person's decision on a diverged name, in its slot: its files as they
   * end up are committed as an ordinary change. Answers this desk's files as
   * they were before, so a copy take theirs replaced is kept (history/own.ts).
   */
  async function decided(kind: 'templates' | 'roles', name: string, files: TemplateSide | RoleSide | null, message: string, who: string | null): Promise<Map<string, Blob>> {
    const key = kind === 'templates' ? (`template:${name}` as const) : (`role:${name}` as const);
    return guard.queue.run(key, async () => {
      const fs = guard.writable();
      if (kind === 'templates') await recoverTemplate(fs, name);
      else await recoverRole(fs, name);
      const before = ownNow(kind, name);
      if (files) await (kind === 'templates' ? writeTemplate(name, files as TemplateSide) : writeRole(name, files as RoleSide));
      recorder.record(key, message, who);
      return before;
    });
  }

  const round = (): SyncRound => {
    const record = recorder.round();
    told(true);
    return {
    template(name, decide, o) {
      const fs = guard.writable();
      // a name code registers read-only is never written, whatever the remote holds under it
      if (ctx.readOnly.has(name)) return Promise.resolve({ kind: 'keep' });
      return guard.queue.run(`template:${name}`, () =>
        guarded(async () => {
          if (o.found) recorder.found(`template:${name}`);
          await recoverTemplate(fs, name);
          const [yamlPath, markerPath] = templatePaths(name);
          const out = decide({ yaml: read(yamlPath), marker: read(markerPath) });
          if (out.kind !== 'write') return out;
          await writeTemplate(name, out.files);
          record.step(`template:${name}`);
          return out;
        }),
      );
    },
    role(name, decide, o) {
      const fs = guard.writable();
      return guard.queue.run(`role:${name}`, () =>
        guarded(async () => {
          if (o.found) recorder.found(`role:${name}`);
          await recoverRole(fs, name);
          const [md, kit, marker] = rolePaths(name);
          const out = decide({ role_md: read(md), kit: read(kit), marker: read(marker) });
          if (out.kind !== 'write') return out;
          await writeRole(name, out.files);
          record.step(`role:${name}`);
          return out;
        }),
      );
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
    own: (kind, name) => guard.queue.run(kind === 'templates' ? `template:${name}` : `role:${name}`, async () => ownNow(kind, name)),
    resolved(kind, name) {
      const next = { templates: new Map(ctx.diverged.templates), roles: new Map(ctx.diverged.roles) };
      next[kind].delete(name);
      ctx.diverged = next;
      ctx.entries.forget(name);
      for (const l of [...listeners]) l(kind, name);
    },
  };
}
