import { DeskError } from '../../errors.js';
import { isRoleName } from '../../template/names.js';
import { canonicalJson, canonicalRoleMd } from './canonical.js';
import type { LibraryContext, WriteGuard } from '../context.js';
import type { FsContext } from '../disk/fs-safe.js';
import { etagOf, formatMarker, ifMatchPasses, roleRevision } from '../disk/markers.js';
import { recoverRole } from '../disk/recovery.js';
import { listRoleEntries, readRoleCopy, roleEntry } from './entries.js';
import { validateKit, validateRoleMd } from './validate.js';
import { writeRoleReset, writeRoleSave } from './files.js';
import { settle } from '../templates/ops.js';
import type { Library, RoleEntry, WriteOptions } from '../types.js';

/** The role half of the Library contract; same front as templates (template-ops.ts). */

export function checkRoleName(name: string): void {
  if (typeof name !== 'string' || !isRoleName(name)) throw new DeskError('invalid_name', 'a role name is a lowercase identifier (letters, digits, underscores), at most 64');
}

type RoleOps = Pick<Library, 'listRoles' | 'getRole' | 'saveRole' | 'resetRole'>;

export function roleOps(ctx: LibraryContext, guard: WriteGuard): RoleOps {
  async function write(name: string, opts: WriteOptions | undefined, op: string, body: (fs: FsContext, before: RoleEntry | null) => Promise<void>, pre: () => void): Promise<RoleEntry> {
    checkRoleName(name);
    const fs = guard.writable();
    pre();
    return guard.queue.run(`role:${name}`, async () => {
      await recoverRole(fs, name);
      const before = roleEntry(ctx, name);
      if (!ifMatchPasses(opts?.ifMatch, before?.etag ?? null)) throw new DeskError('precondition_failed', `role ${name} changed since it was read`);
      await body(fs, before);
      const after = roleEntry(ctx, name);
      ctx.logger.info({ name, kind: 'role', op, before: before?.state ?? null, after: after?.state ?? null, who: opts?.who ?? null }, `role ${op}`);
      if (!after) throw new DeskError('internal', `role ${name} is missing after ${op}`);
      return after;
    });
  }

  return {
    listRoles: async () => listRoleEntries(ctx),
    async getRole(name) {
      checkRoleName(name);
      return roleEntry(ctx, name);
    },
    async saveRole(name, roleMd, kit, opts) {
      let md = '';
      let kitText: string | null = null;
      const validate = () => {
        const problems = validateRoleMd(typeof roleMd === 'string' ? roleMd : null);
        const k = kit === null || kit === undefined ? null : validateKit(kit);
        if (k) problems.push(...k.problems);
        if (problems.length) throw new DeskError('invalid_role', `role ${name} is not valid; nothing was saved`, { problems });
        // canonical form (canonical.ts): an unchanged built-in role saved reads same_as_shipped
        md = canonicalRoleMd(roleMd);
        kitText = k?.kit ? canonicalJson(k.kit) : null;
      };
      return write(name, opts, 'saved', async (fs) => {
        const builtin = ctx.shipped.roles.get(name);
        const revision = roleRevision(Buffer.from(md), kitText === null ? null : Buffer.from(kitText));
        const marker = builtin ? formatMarker({ shipped: builtin.revision, copy: revision }) : null;
        await settle(ctx, name, () => writeRoleSave(fs, name, { op: 'save', role_md: md, kit: kitText, marker }), () => recoverRole(fs, name), async () => roleEntry(ctx, name)?.etag === etagOf(revision));
      }, validate);
    },
    async resetRole(name, opts) {
      const pre = () => {
        if (!ctx.shipped.roles.has(name)) throw new DeskError('not_shipped', `${name} is not a built-in role`);
      };
      return write(name, opts, 'reset', async (fs, before) => {
        if (before?.state === 'shipped') return;
        await settle(ctx, name, () => writeRoleReset(fs, name), () => recoverRole(fs, name), async () => readRoleCopy(ctx, name).kind === 'missing');
      }, pre);
    },
  };
}
