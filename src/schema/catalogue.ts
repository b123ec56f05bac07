/**
 * GET /catalogue: the names the validator checks a template against (roles,
 * templates, and the tools each role's kit grants), so the page can run the
 * same validator (src/template/validate.ts) the server runs on every save.
 * Node-free, so the page can import its type.
 */
import { type Static, Type } from '@sinclair/typebox';

export const CatalogueAnswerSchema = Type.Object(
  {
    roles: Type.Array(Type.String(), { description: 'role names the library knows: built-in and the operator’s, sorted' }),
    templates: Type.Array(Type.String(), { description: 'template names the library holds (for `base`), sorted' }),
    kits: Type.Record(Type.String(), Type.Array(Type.String()), {
      description: 'the tools each role’s kit grants, by role name; a role with no kit is absent',
    }),
  },
  { $id: 'CatalogueAnswer' },
);
export type CatalogueAnswer = Static<typeof CatalogueAnswerSchema>;
