import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

/**
 * fastify's own serializer factory (fast-json-stringify), with each route's
 * response serializer compiled when that route first answers instead of when
 * the route is registered. A service start compiled all of them: about
 * 0.4 s of its 2.4 s of CPU to listening (a CPU profile of `node
 * dist/src/server.js`), for answers most runs never send. The schemas are
 * the same constants on every run, so a broken one is no start-time surprise
 * to catch: every route's answers are serialized by the tests.
 */
type Factory = ReturnType<typeof SerializerSelector>;

export const lazySerializers: Factory = (externalSchemas, serializerOpts) => {
  const compile = SerializerSelector()(externalSchemas, serializerOpts);
  return (route) => {
    let serialize: ((data: unknown) => string) | null = null;
    return (data: unknown) => {
      serialize ??= compile(route);
      return serialize(data);
    };
  };
};
