import type { EventBus } from './events.js';
import type { Library } from './types.js';

type Writes = Pick<Library, 'saveTemplate' | 'resetTemplate' | 'acknowledgeTemplate' | 'deleteTemplate' | 'saveRole' | 'resetRole' | 'deleteRole'>;

/**
 * Wraps the library's writes so each one that completes publishes
 * `template.changed` / `role.changed` with what loads now. A write that
 * throws publishes nothing: it changed nothing, or the watcher
 * (events-watch.ts) sees what it left.
 */
export function announceWrites<T extends Writes>(ops: T, bus: EventBus): T {
  const entry = (type: 'template.changed' | 'role.changed', name: string, e: { state: string; etag: string } | null) =>
    bus.publish(type, { name, state: (e?.state ?? null) as never, etag: e?.etag ?? null });
  return {
    ...ops,
    async saveTemplate(name, ...rest) {
      const d = await ops.saveTemplate(name, ...rest);
      entry('template.changed', name, d);
      return d;
    },
    async resetTemplate(name, ...rest) {
      const d = await ops.resetTemplate(name, ...rest);
      entry('template.changed', name, d);
      return d;
    },
    async acknowledgeTemplate(name, ...rest) {
      const d = await ops.acknowledgeTemplate(name, ...rest);
      entry('template.changed', name, d);
      return d;
    },
    async deleteTemplate(name, ...rest) {
      await ops.deleteTemplate(name, ...rest);
      entry('template.changed', name, null);
    },
    async saveRole(name, ...rest) {
      const r = await ops.saveRole(name, ...rest);
      entry('role.changed', name, r);
      return r;
    },
    async resetRole(name, ...rest) {
      const r = await ops.resetRole(name, ...rest);
      entry('role.changed', name, r);
      return r;
    },
    async deleteRole(name, ...rest) {
      await ops.deleteRole(name, ...rest);
      entry('role.changed', name, null);
    },
  };
}
