/**
 * The body of every error answer, and a problem as it travels. Node-free, so
 * the page can import its types.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { ProblemSchema } from '../template/problems.js';

/**
 * A problem as answered: any code string, so a client need not know the whole
 * catalogue (src/template/problems.ts narrows it for the validator).
 */
export type Problem = Static<typeof ProblemSchema>;

/** RFC 9457 problem details. */
export const ProblemDetailsSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    // An enum, not any string: a client generated from the OpenAPI document
    // (docs/api.md, OpenAPI) then refuses a misspelt code at compile time.
    code: Type.Unsafe<ErrorCode>({
      type: 'string',
      enum: Object.keys(ERROR_CODES),
      description: 'the stable code to branch on (docs/api.md, Error codes)',
    }),
    problems: Type.Optional(Type.Array(Type.Ref(ProblemSchema))),
    needed_role: Type.Optional(
      Type.Union([Type.Literal('viewer'), Type.Literal('conductor'), Type.Literal('editor')], {
        description: 'with `forbidden`: the role the request needs (docs/security.md, Users and roles)',
      }),
    ),
  },
  { $id: 'ProblemDetails' },
);
export type ProblemDetails = Static<typeof ProblemDetailsSchema>;
