import type { EventBus } from './bus.js';
import type { Library } from '../types.js';

type Writes = Pick<Library, 'saveTemplate' | 'resetTemplate' | 'acknowledgeTemplate' | 'deleteTemplate' | 'saveRole' | 'resetRole' | 'deleteRole'>;
type Loaded = { state: string; etag: string } | undefined;

/**
 * Wraps the library's writes so each one that completes publishes
 * `template.changed` / `role.changed` with what loads now (null after a
 * delete). A write that throws publishes nothing: it changed nothing, or the
 * watcher (events-watch.ts) sees what it left.
 */
export function announceWrites<T extends Writes>(ops: T, bus: EventBus): T {
  // Deletes resolve to undefined, so they publish null like a name that no longer loads.
  const after = <F extends (name: string, ...rest: never[]) => Promise<unknown>>(type: 'template.changed' | 'role.changed', op: F): F =>
    (async (name: string, ...rest: never[]) => {
      const e = (await op(name, ...rest)) as Loaded;
      bus.publish(type, { name, state: (e?.state ?? null) as never, etag: e?.etag ?? null });
      return e;
    }) as F;
  return {
    ...ops,
    saveTemplate: after('template.changed', ops.saveTemplate),
    resetTemplate: after('template.changed', ops.resetTemplate),
    acknowledgeTemplate: after('template.changed', ops.acknowledgeTemplate),
    deleteTemplate: after('template.changed', ops.deleteTemplate),
    saveRole: after('role.changed', ops.saveRole),
    resetRole: after('role.changed', ops.resetRole),
    deleteRole: after('role.changed', ops.deleteRole),
  };
}
