import { join } from 'node:path';
import { isTemplateName } from '../../template/names.js';
import { removeFileDurable, writeFileAtomic } from '../disk/atomic-write.js';
import type { LibraryContext, WriteGuard } from '../context.js';
import { readNoFollowSync, safeDirSync } from '../disk/fs-safe.js';
import { look } from '../look.js';
import { parseMarker, sha256Hex } from '../disk/markers.js';
import { recoverRole, recoverTemplate } from '../disk/recovery.js';
import { writeRoleReset, writeRoleSave } from '../roles/files.js';
import { writeTemplateDelete, writeTemplateReset, writeTemplateSave } from '../templates/files.js';
import type { Recorder, RoundRecord } from './recorder.js';
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

export interface RoleSide {
  role_md: Blob;
  kit: Blob;
  marker: Blob;
}

export type PlainDecision = (local: Blob) => Outcome<{ file: Blob }>;

/** One round's per-name steps, and its one commit. */
export interface SyncRound {
  /** reads the template's files, decides, writes the outcome; answers the outcome (`keep` too when its files are odd) */
  template(name: string, decide: (local: TemplateSide) => Outcome<TemplateSide>): Promise<Outcome<TemplateSide>>;
  role(name: string, decide: (local: RoleSide) => Outcome<RoleSide>): Promise<Outcome<RoleSide>>;
  /** a kept base or a proposal file, decided alone */
  plain(path: string, decide: PlainDecision): Promise<Outcome<{ file: Blob }>>;
  /** queues the round's commit (RoundRecord.finish) */
  finish: RoundRecord['finish'];
  /** the round stopped early: what it wrote is committed without the remote as parent */
  abandon: RoundRecord['abandon'];
}

export interface SyncFiles {
  /** a round begins; one at a time */
  round(): SyncRound;
  /** this desk's shipped template of a name (sha256 and text), or null */
  shipped(name: string): { hash: string; text: string } | null;
  /** the one validator against today's catalogue */
  valid(name: string, source: string): boolean;
  /** replaces the diverged names the readers answer (state.ts) */
  setDiverged(names: { templates: Iterable<string>; roles: Iterable<string> }): void;
  /** called when a write through the service settles a diverged name (writes.ts); returns an unsubscribe */
  onResolved(listener: (kind: 'templates' | 'roles', name: string) => void): () => void;
  /**
   * called once a sync's merge is committed, with the plain files it wrote
   * (root-relative paths), so a reader that keeps them in memory (the
   * proposal index) reads them again; returns an unsubscribe
   */
  onPlainWritten(listener: (paths: string[]) => Promise<void>): () => void;
  /** tells those listeners, and resolves once each has read what it needs */
  plainWritten(paths: string[]): Promise<void>;
}

/** Which files of the root a sync may write: anything else in the remote is left alone. */
export type SyncUnit = { kind: 'template'; name: string } | { kind: 'role'; name: string } | { kind: 'plain'; path: string };

const ROLE_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** The unit a root-relative path belongs to, or null for a path a sync never writes. */
export function unitOf(path: string): SyncUnit | null {
  const parts = path.split('/');
  if (parts[0] === 'templates' && parts.length === 2) {
    const m = /^\.?([a-z0-9][a-z0-9-]{0,63})(\.yaml|\.shipped)$/.exec(parts[1]!);
    if (!m) return null;
    const dotted = parts[1]!.startsWith('.');
    // `<name>.yaml` and `.<name>.shipped`; `.x.yaml` or `x.shipped` are not the service's
    if (dotted !== (m[2] === '.shipped') || !isTemplateName(m[1]!)) return null;
    return { kind: 'template', name: m[1]! };
  }
  if (parts[0] === 'templates' && parts[1] === '.shipped-base' && parts.length === 3 && /^[0-9a-f]{64}\.yaml$/.test(parts[2]!)) return { kind: 'plain', path };
  if (parts[0] === 'roles' && parts.length === 3 && ROLE_NAME.test(parts[1]!) && ['role.md', 'kit.json', '.shipped'].includes(parts[2]!)) return { kind: 'role', name: parts[1]! };
  if (parts[0] === 'proposals' && parts.length === 2 && /^[0-9a-z][0-9a-z-]{0,127}\.json$/.test(parts[1]!)) return { kind: 'plain', path };
  return null;
}

export const templatePaths = (name: string): [string, string] => [`templates/${name}.yaml`, `templates/.${name}.shipped`];
export const rolePaths = (name: string): [string, string, string] => [`roles/${name}/role.md`, `roles/${name}/kit.json`, `roles/${name}/.shipped`];

class OddFile extends Error {}

export function syncFiles(ctx: LibraryContext, guard: WriteGuard, recorder: Recorder): SyncFiles & { resolved(kind: 'templates' | 'roles', name: string): void } {
  const listeners = new Set<(kind: 'templates' | 'roles', name: string) => void>();
  const plainListeners = new Set<(paths: string[]) => Promise<void>>();
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

  const round = (): SyncRound => {
    const record = recorder.round();
    return {
    template(name, decide) {
      const fs = guard.writable();
      // a name code registers read-only is never written, whatever the remote holds under it
      if (ctx.readOnly.has(name)) return Promise.resolve({ kind: 'keep' });
      return guard.queue.run(`template:${name}`, () =>
        guarded(async () => {
          await recoverTemplate(fs, name);
          const [yamlPath, markerPath] = templatePaths(name);
          const out = decide({ yaml: read(yamlPath), marker: read(markerPath) });
          if (out.kind !== 'write') return out;
          const { yaml, marker } = out.files;
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
          record.step(`template:${name}`);
          return out;
        }),
      );
    },
    role(name, decide) {
      const fs = guard.writable();
      return guard.queue.run(`role:${name}`, () =>
        guarded(async () => {
          await recoverRole(fs, name);
          const [md, kit, marker] = rolePaths(name);
          const out = decide({ role_md: read(md), kit: read(kit), marker: read(marker) });
          if (out.kind !== 'write') return out;
          const f = out.files;
          if (f.role_md === null) await writeRoleReset(fs, name);
          else await writeRoleSave(fs, name, { op: 'save', role_md: f.role_md.toString('utf8'), kit: f.kit?.toString('utf8') ?? null, marker: f.marker?.toString('utf8') ?? null });
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
    finish: (c) => record.finish(c),
    abandon: (message) => record.abandon(message),
    };
  };

  return {
    round,
    shipped: (name) => ctx.shipped.templates.get(name) ?? null,
    valid: (name, source) => ctx.memo.whole(name, source, sha256Hex(source), look(ctx)).validation.valid,
    setDiverged(names) {
      const before = ctx.diverged;
      ctx.diverged = { templates: new Set(names.templates), roles: new Set(names.roles) };
      // the list keeps facts keyed on file stats: a name whose diverged mark changed is read again
      for (const n of new Set([...before.templates, ...ctx.diverged.templates])) ctx.entries.forget(n);
    },
    onResolved(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onPlainWritten(listener) {
      plainListeners.add(listener);
      return () => plainListeners.delete(listener);
    },
    async plainWritten(paths) {
      if (paths.length) await Promise.all([...plainListeners].map((l) => l(paths).catch((e: unknown) => ctx.logger.error({ err: (e as Error).message }, 'a reader of synced files failed'))));
    },
    resolved(kind, name) {
      const next = { templates: new Set(ctx.diverged.templates), roles: new Set(ctx.diverged.roles) };
      next[kind].delete(name);
      ctx.diverged = next;
      ctx.entries.forget(name);
      for (const l of [...listeners]) l(kind, name);
    },
  };
}
