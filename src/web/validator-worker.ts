/**
 * The template validator off the page's main thread: the same
 * src/template/validate.ts the server runs on every save, bundled into a
 * module Worker (scripts/build-web.mjs). Messages: `{catalogue}` sets the
 * names to check against; `{id, source, name}` answers `{id, problems}`.
 * A 128 KiB template takes tens of milliseconds; here that never holds up
 * typing.
 */
import type { CatalogueAnswer } from '../schema/catalogue.js';
import type { Problem } from '../schema/errors.js';
import { validateTemplate } from '../template/validate.js';
import { toCatalogue } from './validator-core.js';

export type ToWorker = { catalogue: CatalogueAnswer } | { id: number; source: string; name: string | undefined };
export interface FromWorker {
  id: number;
  problems: Problem[];
}

interface WorkerScope {
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
  postMessage(m: FromWorker): void;
}
const scope = self as unknown as WorkerScope;

let catalogue = toCatalogue({ roles: [], templates: [], kits: {} });

scope.onmessage = (e) => {
  const m = e.data;
  if ('catalogue' in m) {
    catalogue = toCatalogue(m.catalogue);
    return;
  }
  const v = validateTemplate(m.source, { ...(m.name !== undefined ? { name: m.name } : {}), catalogue });
  scope.postMessage({ id: m.id, problems: v.problems });
};
