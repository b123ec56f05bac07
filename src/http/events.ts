/**
 * `GET /api/desk/events` (docs/api.md, Events): what changed in the
 * library, as Server-Sent Events. Hints only: the ETag stays the guard.
 * Guarded like every /api route; since EventSource cannot send an
 * Authorization header, this route also takes the token as `?token=`
 * (docs/security.md says what that costs).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { DeskError } from '../errors.js';
import type { Library } from '../library/types.js';
import type { EventStreams } from './events-stream.js';
import { errorResponses } from './schemas.js';

export const eventRoutes: FastifyPluginAsyncTypebox<{ library: Library; streams: EventStreams }> = async (app, { streams }) => {
  app.get(
    '/events',
    {
      config: { queryToken: true },
      // a HEAD would open a stream that can never carry anything and hold a place until the client left
      exposeHeadRoute: false,
      schema: {
        summary: 'What changed in the library, as Server-Sent Events (text/event-stream)',
        tags: ['events'],
        querystring: Type.Object({
          token: Type.Optional(Type.String({ description: 'the bearer token, for EventSource, which cannot send Authorization' })),
        }),
        headers: Type.Object({
          'last-event-id': Type.Optional(Type.String({ description: 'resume after this event; a `resync` event answers an id that cannot be resumed' })),
        }),
        response: {
          200: {
            description: 'the stream: `id:`, `event:` and one `data:` line of JSON per event (docs/api.md, Events)',
            content: { 'text/event-stream': { schema: Type.String() } },
          },
          ...errorResponses,
        },
      },
    },
    async (req, reply) => {
      if (!streams.hasRoom()) {
        // the socket goes with the refusal: a kept-alive one would hold a file descriptor until the idle timeout
        reply.header('retry-after', '10').header('connection', 'close');
        throw new DeskError('too_many_subscribers', `at most ${streams.maxSubscribers} event streams may be open at once`);
      }
      reply.hijack();
      try {
        streams.open(reply.raw, req.headers['last-event-id']);
      } catch (err) {
        // hijacked: fastify's error handler no longer answers, so the stream is cut rather than left hanging
        req.log.error({ err }, 'an event stream failed to open');
        reply.raw.destroy();
        return;
      }
      req.log.info({ method: req.method, url: req.url.split('?')[0], status: 200, who: req.ip }, 'event stream opened');
    },
  );
};
