/**
 * What the routes share around the answer schemas. The shapes themselves live
 * in src/schema/ (Node-free, so the page compiles against the same types);
 * each serves validation, the response serializer and the OpenAPI document.
 * Schemas with an `$id` are registered once with `app.addSchema` and
 * referenced with `Type.Ref`, so they appear once as OpenAPI components.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { CardSchema } from '../schema/card.js';
import { TemplateDiffSchema } from '../schema/diff.js';
import { ProblemDetailsSchema } from '../schema/errors.js';
import { RoleAnswerSchema, RoleName, RoleSummarySchema } from '../schema/roles.js';
import { TemplateAnswerSchema, TemplateName, TemplateSummarySchema } from '../schema/templates.js';
import { ProblemSchema } from '../template/problems.js';

export const TemplateParams = Type.Object({ name: TemplateName });
export const RoleParams = Type.Object({ name: RoleName });

/** Registered with app.addSchema, in dependency order. */
export const SHARED_SCHEMAS: TSchema[] = [
  ProblemSchema,
  ProblemDetailsSchema,
  TemplateDiffSchema,
  CardSchema,
  TemplateSummarySchema,
  TemplateAnswerSchema,
  RoleSummarySchema,
  RoleAnswerSchema,
];

/** Error answers every route can give; the error handler writes them. */
export const errorResponses = {
  '4xx': Type.Ref(ProblemDetailsSchema),
  '5xx': Type.Ref(ProblemDetailsSchema),
};
