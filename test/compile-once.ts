/**
 * Setup file of `npm test`'s unit project: fastify's response serializers
 * and request validators compiled once per worker instead of once per app.
 *
 * Every `buildApp` compiles a fast-json-stringify serializer for each
 * response schema of each route: about half of the CPU of building an app,
 * and the unit tests build hundreds of apps from the same schemas. Here the
 * compiler fastify loads (@fastify/fast-json-stringify-compiler, looked up in
 * Node's module cache each time an app is built) is wrapped so that a schema
 * seen before, with the same shared schemas and serializer options, gets the
 * function compiled the first time. The compiler is a pure function of those
 * inputs, so each app serializes exactly as it would with its own copy, and
 * nothing a test asserts changes. The running service builds one app and
 * never loads this file.
 *
 * The same for the request validators (@fastify/ajv-compiler): each app
 * made its own ajv and compiled every route's body, query, params and
 * header schemas again, about 160 ms of CPU per app. A validator is a pure
 * function of its schema, the shared schemas and ajv's options, which are
 * all in the key, and fastify calls it and reads its `errors` at once, as
 * it does for every request of one app, so sharing it across apps changes
 * no answer. An app's own ajv is made only for a schema not seen before.
 */
import { createRequire } from 'node:module';

type Compile = (route: { schema: unknown }) => unknown;
type Factory = (externalSchemas: unknown, serializerOpts: unknown) => Compile;
type Selector = (() => Factory) & { [key: string]: unknown };

const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
const id = fromFastify.resolve('@fastify/fast-json-stringify-compiler');
const original = fromFastify(id) as Selector;
const MARK = Symbol.for('desk-library.test.compile-once');

if (!(MARK in original)) {
  const compiled = new Map<string, unknown>();
  const selector = (() => {
    const factory = original();
    return (externalSchemas, serializerOpts) => {
      const compile = factory(externalSchemas, serializerOpts);
      // the options and shared schemas are the same for every route of an app: written out once per app
      const shared = JSON.stringify([externalSchemas, serializerOpts]);
      // …except that the compiler drops a shared schema from them for good once a route's own schema carries
      // its $id: the same is tracked here, so the key always describes the inputs the compiler will see
      const dropped = new Set<string>();
      const externals = (externalSchemas ?? {}) as Record<string, unknown>;
      return (route) => {
        const $id = (route.schema as { $id?: unknown } | null)?.$id;
        if (typeof $id === 'string' && $id in externals) dropped.add($id);
        const key = `${shared}\u0000${[...dropped].join('\u0000')}\u0000${JSON.stringify(route.schema)}`;
        let fn = compiled.get(key);
        if (fn === undefined) {
          fn = compile(route);
          compiled.set(key, fn);
        }
        return fn;
      };
    };
  }) as Selector;
  Object.assign(selector, original, { default: selector, SerializerSelector: selector, [MARK]: true });
  const cached = fromFastify.cache[id];
  if (cached) cached.exports = selector;
}

type ValidatorCompile = (route: { schema: unknown; httpPart?: string }) => unknown;
type ValidatorOptions = { customOptions?: unknown; mode?: unknown; plugins?: unknown[]; onCreate?: unknown };
type ValidatorFactory = (externalSchemas: unknown, options: ValidatorOptions) => ValidatorCompile;
type AjvSelector = ((opts?: unknown) => ValidatorFactory) & { [key: string]: unknown };

const ajvId = fromFastify.resolve('@fastify/ajv-compiler');
const ajvOriginal = fromFastify(ajvId) as AjvSelector;

if (!(MARK in ajvOriginal)) {
  const compiled = new Map<string, unknown>();
  const selector = ((opts?: unknown) => {
    // a serializer pool (jtdSerializer) or any other use: as fastify's own
    if (opts !== undefined) return ajvOriginal(opts);
    const factory = ajvOriginal();
    return (externalSchemas, options) => {
      // plugins and onCreate are functions a key cannot describe: compiled per app, as without this file
      if (options.plugins?.length || options.onCreate) return factory(externalSchemas, options);
      const shared = JSON.stringify([externalSchemas, options.customOptions, options.mode ?? null]);
      let own: ValidatorCompile | null = null;
      return (route) => {
        const key = `${shared}\u0000${route.httpPart ?? ''}\u0000${JSON.stringify(route.schema)}`;
        let fn = compiled.get(key);
        if (fn === undefined) {
          own ??= factory(externalSchemas, options);
          fn = own(route);
          compiled.set(key, fn);
        }
        return fn;
      };
    };
  }) as AjvSelector;
  Object.assign(selector, ajvOriginal, { default: selector, AjvCompiler: selector, [MARK]: true });
  const cached = fromFastify.cache[ajvId];
  if (cached) cached.exports = selector;
}
