/**
 * GET /me (docs/api.md): the caller's name and role, for the page to show
 * who it is and leave out what the role cannot do. A desk that knows no
 * users answers the loopback operator: no name, every right.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MeAnswerSchema } from '../../schema/users.js';
import { errorResponses } from '../schemas.js';

export const meRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/me',
    {
      schema: {
        summary: 'Who the desk takes the caller for: name and role',
        tags: ['meta'],
        response: { 200: MeAnswerSchema, ...errorResponses },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store');
      const u = req.deskUser;
      return u ? { name: u.name, role: u.role } : { name: null, role: 'editor' as const };
    },
  );
};
