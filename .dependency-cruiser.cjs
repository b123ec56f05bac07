/**
 * The layers of src/, checked by dependency-cruiser (`npm run lint`; the rules
 * are tested by test/layers.test.ts). From the bottom:
 *
 *   template  src/template/**, src/errors.ts, src/paths.ts (the validator and what it stands on)
 *   schema    src/schema/**   (the API's answer types)
 *   library   src/library/**  (the library on disk)
 *   mcp       src/mcp/**      (the conductor's MCP tools, beside the routes)
 *   http      src/http/**     (the routes)
 *   top       src/app.ts, src/server.ts, src/cli.ts and src/cli/**, src/config.ts, src/healthcheck.ts
 *
 * A layer imports only the layers below it, or itself. The browser page
 * (src/web/**) stands beside the stack: it imports only schema and template
 * (what it bundles must run in a browser), and nothing imports it. No import
 * cycles anywhere in src/. Node built-ins and node_modules are allowed.
 *
 * src/mcp serves the same library as the routes, over MCP instead of HTTP
 * routes: of src/http only the route that mounts it (routes/mcp.ts) imports
 * it. The MCP card app (src/mcp-app/**) is a browser bundle like the page:
 * it imports schema, template and the page's own modules, and nothing
 * imports it.
 *
 * Why the swc parser on src/*.ts, not the default parser on dist/*.js:
 * - dependency-cruiser's own TypeScript parsing goes through the `typescript`
 *   package's compiler API, which TypeScript 7 no longer ships.
 * - Compiled JavaScript has lost every `import type`, so a type-only import
 *   that climbs a layer (or closes a cycle) would pass unseen; swc parses the
 *   sources as written and keeps them.
 * - dist/ exists only after a build, may be stale (a file deleted from src/
 *   lingers in dist/), and has no per-module JavaScript for the page at all:
 *   esbuild bundles src/web into hashed chunks (scripts/build-web.mjs).
 * - @swc/core ships its native binary as a per-platform npm package (an
 *   optional dependency, in package-lock.json), so `npm ci` installs it with
 *   nothing fetched from outside npm and no install script to run.
 * - Without `parser: 'swc'` the cruiser would hand the raw TypeScript to
 *   acorn's loose parser (its fallback when `typescript` is unusable): it
 *   finds today's imports, but by guessing past syntax it does not know.
 * Not seen even so: a type written inline as `import('…')` nested in another
 * type (swc's visitor only reports one that is a whole annotation).
 *
 * dependency-cruiser stays on 17.x (package.json ^17): 18 needs Node 22, and
 * this project runs on Node 20.
 */

/** each layer's modules, as dependency-cruiser path patterns (relative to the repo root) */
const LAYERS = {
  template: ['^src/template/', '^src/errors\\.ts$', '^src/paths\\.ts$'],
  schema: ['^src/schema/'],
  library: ['^src/library/'],
  mcp: ['^src/mcp/'],
  http: ['^src/http/'],
  top: ['^src/(app|server|cli|config|healthcheck)\\.ts$', '^src/cli/'],
};
const STACK = Object.keys(LAYERS); // bottom first
const WEB = ['^src/web/'];
const MCP_APP = ['^src/mcp-app/'];
/** the one module of src/http that mounts the MCP server */
const MCP_MOUNT = '^src/http/routes/mcp\\.ts$';
const ALL_LAYERS = [...Object.values(LAYERS).flat(), ...WEB, ...MCP_APP];

/**
 * The library's face (src/library/index.ts): what the layers above it use of
 * src/library, with types.ts, the Library contract, which holds types alone.
 */
const LIBRARY_FACE = ['^src/library/index\\.ts$', '^src/library/types\\.ts$'];
/**
 * Inside src/library (docs/architecture.md, Floors), from the top:
 *   the face     index.ts, library.ts (openLibrary puts the parts together), types.ts (the
 *                Library contract, which names the features), answers.ts (the API's shapes),
 *                roll-forward.ts (the start finishing what a crash left of each part)
 *   features     the sync (sync/), the upgrade, the record stores, the watcher
 *   the core     everything else: disk, templates, roles, the door and writes, the reads,
 *                history's commit
 * The core never imports a feature; nothing inside src/library imports index.ts. No part
 * (a folder or a top-level file) imports a part that imports it: scripts/library-parts.mjs,
 * run by `npm run lint` after this file's rules, checks that, which paths alone cannot say.
 */
const LIBRARY_TOP = ['^src/library/(index|library|types|answers|roll-forward)\\.ts$'];
const LIBRARY_FEATURES = [
  '^src/library/sync/',
  '^src/library/upgrade/',
  '^src/library/records/',
  '^src/library/records[^/]*\\.ts$',
  '^src/library/events/(watch|folders)\\.ts$',
];

/** one rule per climbing direction, named `<lower>-not-to-<higher>` */
const climbing = STACK.flatMap((lower, i) =>
  STACK.slice(i + 1).map((higher) => ({
    name: `${lower}-not-to-${higher}`,
    comment: `Layers of src/ (.dependency-cruiser.cjs): ${lower} sits below ${higher}, so it may not import it. A layer imports only the layers below it (${STACK.join(' < ')}).`,
    severity: 'error',
    from: { path: LAYERS[lower] },
    to: { path: LAYERS[higher] },
  })),
);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Layers of src/ (.dependency-cruiser.cjs): no import cycles anywhere in src/, type-only imports included.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...climbing,
    {
      name: 'web-only-to-schema-template',
      comment:
        'Layers of src/ (.dependency-cruiser.cjs): the browser page (src/web) imports from src/ only the schema and template layers; the rest leans on Node and the disk.',
      severity: 'error',
      from: { path: WEB },
      to: { path: '^src/', pathNot: [...WEB, ...LAYERS.schema, ...LAYERS.template] },
    },
    {
      name: 'not-to-web',
      comment: 'Layers of src/ (.dependency-cruiser.cjs): src/web is the browser page, no layer below or above it; nothing outside it imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: [...WEB, ...MCP_APP] },
      to: { path: WEB },
    },
    {
      name: 'mcp-app-only-to-web-schema-template',
      comment:
        'Layers of src/ (.dependency-cruiser.cjs): the MCP card app (src/mcp-app) is a browser bundle: it imports from src/ only the page (src/web), schema and template.',
      severity: 'error',
      from: { path: MCP_APP },
      to: { path: '^src/', pathNot: [...MCP_APP, ...WEB, ...LAYERS.schema, ...LAYERS.template] },
    },
    {
      name: 'not-to-mcp-app',
      comment: 'Layers of src/ (.dependency-cruiser.cjs): src/mcp-app is a browser bundle the build inlines into one HTML document; no module imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: MCP_APP },
      to: { path: MCP_APP },
    },
    {
      name: 'http-to-mcp-only-to-mount',
      comment: 'Layers of src/ (.dependency-cruiser.cjs): of src/http only routes/mcp.ts imports src/mcp, to mount it; the MCP tools call the library as the routes do, not the routes.',
      severity: 'error',
      from: { path: LAYERS.http, pathNot: MCP_MOUNT },
      to: { path: LAYERS.mcp },
    },
    {
      name: 'outside-library-only-to-face',
      comment:
        'Layers of src/ (.dependency-cruiser.cjs): src/http, src/mcp and the top import src/library only through its face, src/library/index.ts (types alone also from types.ts); openLibrary builds every part of the library, so nothing above reaches into one.',
      severity: 'error',
      from: { path: [...LAYERS.mcp, ...LAYERS.http, ...LAYERS.top] },
      to: { path: LAYERS.library, pathNot: LIBRARY_FACE },
    },
    {
      name: 'library-not-to-face',
      comment: 'Layers of src/ (.dependency-cruiser.cjs): src/library/index.ts is the face of the library to the layers above; no module inside src/library imports it.',
      severity: 'error',
      from: { path: LAYERS.library, pathNot: LIBRARY_FACE[0] },
      to: { path: LIBRARY_FACE[0] },
    },
    {
      name: 'library-core-not-to-features',
      comment:
        'Layers of src/ (.dependency-cruiser.cjs): inside src/library the core (disk, templates, roles, the door, the reads, history\'s commit) never imports a feature built above it (sync, upgrade, the record stores, the watcher); a feature uses the core.',
      severity: 'error',
      from: { path: LAYERS.library, pathNot: [...LIBRARY_TOP, ...LIBRARY_FEATURES] },
      to: { path: LIBRARY_FEATURES },
    },
    {
      name: 'not-to-unlayered',
      comment:
        'Layers of src/ (.dependency-cruiser.cjs): every module of src/ that is imported belongs to a layer; a new folder or top-level file joins one in LAYERS here, or no rule above would check it.',
      severity: 'error',
      from: {},
      to: { path: '^src/', pathNot: ALL_LAYERS },
    },
    {
      name: 'not-to-unresolvable',
      comment:
        'Layers of src/ (.dependency-cruiser.cjs): an import the cruiser cannot resolve is one no layer rule can check (e.g. a `.js` specifier that no longer maps to a `.ts` file), so it fails rather than passes.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // see the top of this file
    parser: 'swc',
    // keep type-only imports in the graph (the swc parser reports them as plain imports anyway)
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: {
      // node-diff3 and others resolve through package.json "exports" only
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};
