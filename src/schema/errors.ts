/**
 * The body of every error answer, and a problem as it travels. Node-free, so
 * the page can import its types.
 */
import { type Static, Type } from '@sinclair/typebox';
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
    code: Type.String({ description: 'stable code from docs/api.md' }),
    problems: Type.Optional(Type.Array(Type.Ref(ProblemSchema))),
  },
  { $id: 'ProblemDetails' },
);
export type ProblemDetails = Static<typeof ProblemDetailsSchema>;
