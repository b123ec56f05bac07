/** The catalogue answer (GET /api/desk/catalogue) as the validator takes it. */
import type { CatalogueAnswer } from '../schema/catalogue.js';
import type { Catalogue } from '../template/model.js';

export function toCatalogue(a: CatalogueAnswer): Catalogue {
  return { roles: new Set(a.roles), templates: new Set(a.templates), kits: new Map(Object.entries(a.kits)) };
}
