/**
 * The HTTP layer's TypeBox schemas (docs/api.md): one schema per
 * shape, serving validation, the response serializer and the OpenAPI
 * document. Fields are snake_case. Schemas with an `$id` are registered once
 * with `app.addSchema` and referenced with `Type.Ref`, so they appear once as
 * OpenAPI components.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { CardSchema } from '../template/card.js';
import { TemplateDiffSchema } from '../template/diff.js';
import { ROLE_NAME, TEMPLATE_NAME } from '../template/names.js';
import { ProblemSchema } from '../template/problems.js';

export const TemplateName = Type.String({
  pattern: TEMPLATE_NAME.source,
  description: 'lowercase letters, digits and dashes, starting with a letter or digit, at most 64',
});
export const RoleName = Type.String({
  pattern: ROLE_NAME.source,
  description: 'an identifier: lowercase letters, digits and underscores, starting with a letter, at most 64',
});

export const TemplateParams = Type.Object({ name: TemplateName });
export const RoleParams = Type.Object({ name: RoleName });

export const StateSchema = Type.Union(
  ['shipped', 'same_as_shipped', 'stale', 'shipped_changed_since', 'edited', 'custom', 'read_only'].map((s) =>
    Type.Literal(s),
  ),
  { description: 'docs/api.md (States) says what each means and what to do about it' },
);

/** RFC 9457 problem details, the body of every error answer. */
export const ProblemDetailsSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'stable code from docs/api.md' }),
    problems: Type.Optional(Type.Array(Type.Ref(ProblemSchema))),
  },
  { $id: 'ProblemDetails' },
);

export const TemplateSummarySchema = Type.Object(
  {
    name: Type.String(),
    purpose: Type.Union([Type.String(), Type.Null()]),
    shipped: Type.Boolean(),
    read_only: Type.Boolean(),
    state: StateSchema,
    edited_outside: Type.Boolean(),
    ticket: Type.Boolean(),
    writes: Type.Boolean(),
    closes_ticket: Type.Boolean(),
    base: Type.Union([Type.String(), Type.Null()]),
    valid: Type.Boolean(),
    errors: Type.Integer({ minimum: 0, description: 'number of problems of severity error' }),
    warnings: Type.Integer({ minimum: 0, description: 'number of problems of severity warning' }),
  },
  { $id: 'TemplateSummary' },
);

export const TemplateAnswerSchema = Type.Object(
  {
    name: Type.String(),
    state: StateSchema,
    shipped: Type.Boolean(),
    read_only: Type.Boolean(),
    edited_outside: Type.Boolean(),
    source: Type.String({ description: 'the bytes that load' }),
    shipped_source: Type.Union([Type.String(), Type.Null()], { description: "today's shipped bytes" }),
    valid: Type.Boolean(),
    problems: Type.Array(Type.Ref(ProblemSchema)),
    card: Type.Ref(CardSchema),
  },
  { $id: 'TemplateAnswer' },
);

export const KitSchema = Type.Object(
  { tools: Type.Array(Type.String()) },
  { additionalProperties: false, description: 'kit.json: the tools the role may use' },
);

export const RoleSummarySchema = Type.Object(
  {
    name: Type.String(),
    shipped: Type.Boolean(),
    state: StateSchema,
    edited_outside: Type.Boolean(),
    has_kit: Type.Boolean(),
    valid: Type.Boolean(),
  },
  { $id: 'RoleSummary' },
);

export const RoleAnswerSchema = Type.Object(
  {
    name: Type.String(),
    state: StateSchema,
    shipped: Type.Boolean(),
    edited_outside: Type.Boolean(),
    role_md: Type.String(),
    kit: Type.Union([KitSchema, Type.Null()]),
    shipped_role_md: Type.Union([Type.String(), Type.Null()]),
    shipped_kit: Type.Union([KitSchema, Type.Null()]),
    valid: Type.Boolean(),
    problems: Type.Array(Type.Ref(ProblemSchema)),
  },
  { $id: 'RoleAnswer' },
);

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

export type TemplateSummary = Static<typeof TemplateSummarySchema>;
