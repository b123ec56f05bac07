import { DeskError } from '../../errors.js';
import type { LibraryContext, WriteGuard } from '../context.js';
import { ifMatchPasses } from '../disk/markers.js';
import { recoverRole } from '../disk/recovery.js';
import { roleEntry } from './entries.js';
import { checkRoleName } from './ops.js';
import { writeRoleReset } from './files.js';
import { settle } from '../templates/ops.js';
import type { Library } from '../types.js';

/**
 * Deleting a custom role (docs/api.md, DELETE /roles/:name). A built-in
 * role's name is refused with not_custom, as templates are: the client
 * resets it instead, so a delete never quietly turns into "the built-in
 * loads again". The file steps are a reset's (role-writes.ts): a redo
 * record, then the role's folder removed, so a crash midway finishes the
 * delete at the next start.
 */
export function roleDelete(ctx: LibraryContext, guard: WriteGuard): Pick<Library, 'deleteRole'> {
  return {
    async deleteRole(name, opts) {
      checkRoleName(name);
      if (ctx.shipped.roles.has(name)) throw new DeskError('not_custom', `${name} is a built-in role; reset it instead`);
      const fs = guard.writable();
      await guard.queue.run(`role:${name}`, async () => {
        await recoverRole(fs, name);
        const before = roleEntry(ctx, name);
        if (!ifMatchPasses(opts?.ifMatch, before?.etag ?? null)) throw new DeskError('precondition_failed', `role ${name} changed since it was read`);
        if (!before) throw new DeskError('not_found', `no role ${name}`);
        await settle(ctx, name, () => writeRoleReset(fs, name), () => recoverRole(fs, name), () => roleEntry(ctx, name) === null);
        ctx.logger.info({ name, kind: 'role', op: 'deleted', before: before.state, after: null, who: opts?.who ?? null }, 'role deleted');
      });
    },
  };
}
