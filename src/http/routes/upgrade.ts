/**
 * The upgrade assistant (docs/operations.md, Upgrading; docs/api.md,
 * Upgrade): the plan of every operator copy behind the shipped templates and
 * roles, and the apply that moves the automatic ones onto today's shipped
 * versions in one history entry.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Library } from '../../library/types.js';
import { UpgradePlanSchema, UpgradeRequestSchema, UpgradeResultSchema } from '../../schema/upgrade.js';
import { errorResponses } from '../schemas.js';
import { whoOf } from '../auth.js';

export const upgradeRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  app.get(
    '/upgrade',
    {
      schema: {
        summary: 'Every operator copy saved against an older shipped version, with what an upgrade would do',
        tags: ['upgrade'],
        response: { 200: UpgradePlanSchema, ...errorResponses },
      },
    },
    async () => library.planUpgrade(),
  );

  app.post(
    '/upgrade',
    {
      schema: {
        summary: 'Upgrade the copies listed, or every reset and clean one: one history entry, one library.upgraded event',
        tags: ['upgrade'],
        body: UpgradeRequestSchema,
        response: { 200: UpgradeResultSchema, ...errorResponses },
      },
    },
    async (req) => library.applyUpgrade(req.body, whoOf(req)),
  );
};
