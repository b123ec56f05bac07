/**
 * Setup file of `npm test`'s unit project: fastify's response serializers
 * and request validators compiled once per worker instead of once per app.
 *
 * Every `buildApp` compiles a fast-json-stringify serializer for each
 * response schema of each route (at the route's first answer: src/http/
 * lazy-serializers.ts), and each serializer makes its own ajv and compiles
 * the branches of every anyOf it meets at its first use: together about
 * half of the CPU the unit tests spend in the service, for hundreds of apps
 * built from the same schemas. Here fast-json-stringify itself (the
 * function the compiler fastify and the service use calls, looked up in
 * Node's module cache when the compiler is first loaded) is wrapped so that
 * a schema seen before, with the same options and shared schemas, gets the
 * serializer built the first time. It is a pure function of those inputs,
 * all of them in the key (options with a function in them are not cached),
 * so each app serializes exactly as it would with its own copy, and nothing
 * a test asserts changes. The running service builds one app and never
 * loads this file.
 *
 * It wraps fast-json-stringify and not the compiler module: the service
 * imports the compiler as an ES module, whose bindings Node fixes when it
 * first loads it, so a wrapper put in the module cache afterwards is never
 * called (it was not, for a while, and nobody noticed the CPU). The
 * compiler reads fast-json-stringify once, when it is loaded: this file
 * must run before anything loads it, and refuses to run after.
 *
 * The same for the request validators (@fastify/ajv-compiler): each app
 * made its own ajv and compiled every route's body, query, params and
 * header schemas again, about 160 ms of CPU per app. A validator is a pure
 * function of its schema, the shared schemas and ajv's options, which are
 * all in the key, and fastify calls it and reads its `errors` at once, as
 * it does for every request of one app, so sharing it across apps changes
 * no answer. An app's own ajv is made only for a schema not seen before.
 * fastify requires this compiler each time it builds an app, so the module
 * cache is the place to wrap it.
 */
import { createRequire } from 'node:module';

type Stringify = ((schema: unknown, options?: Record<string, unknown>) => unknown) & { [key: string]: unknown };

const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
const compilerId = fromFastify.resolve('@fastify/fast-json-stringify-compiler');
const fromCompiler = createRequire(compilerId);
const stringifyId = fromCompiler.resolve('fast-json-stringify');
const MARK = Symbol.for('desk-library.test.compile-once');

/** What `map` holds under `key`, made by `make` the first time. */
function once<T>(map: Map<string, T>, key: string, make: () => T): T {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

const hasFunction = (value: unknown): boolean =>
  typeof value === 'function' || (value !== null && typeof value === 'object' && Object.values(value).some(hasFunction));

const stringify = fromCompiler(stringifyId) as Stringify;
if (!(MARK in stringify)) {
  // the compiler keeps the function it found when it was loaded: wrapping after that would change nothing
  if (fromFastify.cache[compilerId] || fromFastify.cache[fromCompiler.resolve('./standalone.js')]) {
    throw new Error('test/compile-once.ts ran after the fast-json-stringify compiler was loaded: list it first in setupFiles');
  }
  const built = new Map<string, unknown>();
  const cached = ((schema, options) => {
    if (hasFunction(options)) return stringify(schema, options);
    return once(built, JSON.stringify([schema, options ?? null]), () => stringify(schema, options));
  }) as Stringify;
  Object.assign(cached, stringify, { default: cached, build: cached, [MARK]: true });
  const entry = fromCompiler.cache[stringifyId];
  if (entry) entry.exports = cached;
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
        return once(compiled, key, () => {
          own ??= factory(externalSchemas, options);
          return own(route);
        });
      };
    };
  }) as AjvSelector;
  Object.assign(selector, ajvOriginal, { default: selector, AjvCompiler: selector, [MARK]: true });
  const cached = fromFastify.cache[ajvId];
  if (cached) cached.exports = selector;
}
