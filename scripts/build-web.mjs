#!/usr/bin/env node
/**
 * `npm run build:web`: bundles the settings page with esbuild into dist/web/.
 *
 * - `src/web/main.ts` (the page) and `src/web/validator-worker.ts` (the
 *   template validator, run off the main thread) become ES modules, minified,
 *   with source maps, split into shared chunks; every file name carries a
 *   content hash, so the service can let browsers cache them for a year.
 * - `src/web/style.css` is copied under a hashed name too.
 * - `src/web/index.html` is written to `dist/web/index.html` with the hashed
 *   script and stylesheet and the worker's URL in a `<meta>` (the one file
 *   served `no-cache`, so a rebuilt page shows up on the next load).
 * - Each hashed .js and .css is also written brotli- and gzip-compressed
 *   (`.br`, `.gz`), so the service never compresses the page per request.
 * - Files of earlier builds (other hashes, the old per-module `*.js`) are
 *   removed once the new index.html is in place, except the previous
 *   build's hashed files (listed in `.build-files.json`), kept one more
 *   build so an open tab can still load its views.
 *
 * Type errors do not stop the bundle: `tsc -p tsconfig.web.json` is the page's
 * type check (`npm run typecheck`, `npm run build`).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, brotliCompressSync, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src', 'web');
const out = join(root, 'dist', 'web');
/** the URL prefix the service serves dist/web's hashed files under (src/http/static.ts) */
const PREFIX = '/assets/';

mkdirSync(out, { recursive: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: { main: join(src, 'main.ts'), 'validator-worker': join(src, 'validator-worker.ts') },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: 'linked',
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'linked',
  logLevel: 'warning',
});

/** the output file of an entry point, by its entry name */
const entries = {};
/** the chunks each entry's output imports statically, by output file name */
const imports = {};
const written = new Set();
for (const [file, meta] of Object.entries(result.metafile.outputs)) {
  written.add(basename(file));
  if (meta.entryPoint) entries[basename(meta.entryPoint, '.ts')] = basename(file);
  imports[basename(file)] = meta.imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => basename(i.path));
}
for (const name of ['main', 'validator-worker']) if (!entries[name]) throw new Error(`build-web: no output for ${name}`);

// The stylesheet: copied as is, named by its content like esbuild's files (8 base32 characters).
const css = readFileSync(join(src, 'style.css'));
const cssName = `style-${hash(css)}.css`;
writeFileSync(join(out, cssName), css);
written.add(cssName);

let html = readFileSync(join(src, 'index.html'), 'utf8');
html = replaceOnce(html, /<link rel="stylesheet" href="[^"]*">/, `<link rel="stylesheet" href="${PREFIX}${cssName}">`);
// The chunks the page imports, fetched alongside it rather than after it is parsed (one round trip, not two).
const preload = [...new Set(imports[entries.main])].map((c) => `<link rel="modulepreload" href="${PREFIX}${c}">\n  `).join('');
html = replaceOnce(
  html,
  /<script type="module" src="[^"]*"><\/script>/,
  `<meta name="desk-validator-worker" content="${PREFIX}${entries['validator-worker']}">\n  ${preload}<script type="module" src="${PREFIX}${entries.main}"></script>`,
);
// Compressed once here, at the best settings, rather than per request: the service sends
// `<file>.br` or `<file>.gz` to a browser that takes it (src/http/static.ts).
for (const f of [...written]) {
  if (!/\.(?:js|css)$/.test(f)) continue;
  const bytes = readFileSync(join(out, f));
  writeFileSync(join(out, `${f}.br`), brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
  writeFileSync(join(out, `${f}.gz`), gzipSync(bytes, { level: 9 }));
  written.add(`${f}.br`).add(`${f}.gz`);
}

// index.html last, and by rename: a service reading it mid-build sees the old page or the new, whole
const tmp = join(out, `.index.html.${process.pid}`);
writeFileSync(tmp, html);
renameSync(tmp, join(out, 'index.html'));
written.add('index.html');

// Stale files: whatever neither this build nor the one before it wrote (older hashes, the old tsc
// output and its folders). The previous build's files stay one more build: a tab opened before
// this build still fetches its lazily loaded views (the page says to reload when even those are gone).
const MANIFEST = '.build-files.json';
let previous = [];
try {
  previous = JSON.parse(readFileSync(join(out, MANIFEST), 'utf8')).files ?? [];
} catch {
  // the first build here, or a manifest from elsewhere: nothing is kept
}
const keep = new Set([...written, ...previous.filter((f) => typeof f === 'string' && /-[A-Z2-7]{8}\.(?:js|css)(?:\.map|\.br|\.gz)?$/.test(f))]);
let removed = 0;
for (const f of readdirSync(out)) {
  if (keep.has(f) || f === MANIFEST) continue;
  rmSync(join(out, f), { recursive: true, force: true });
  removed++;
}
writeFileSync(join(out, MANIFEST), `${JSON.stringify({ files: [...written].sort() }, null, 1)}\n`);

const bytes = [...written].reduce((n, f) => n + statSync(join(out, f)).size, 0);
console.log(
  `build-web: ${relative(root, out)}/ ${entries.main}, ${entries['validator-worker']}, ${cssName} ` +
    `(${written.size} files, ${Math.round(bytes / 1024)} KiB with maps; ${removed} stale removed)`,
);

// The MCP card app: the card code above in one self-contained document (scripts/build-card-app.mjs).
await import('./build-card-app.mjs');

function hash(buf) {
  // base32 of a SHA-256 prefix: the same alphabet and length esbuild's [hash] uses
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const digest = createHash('sha256').update(buf).digest();
  let s = '';
  for (let i = 0; i < 8; i++) s += alphabet[digest[i] & 31];
  return s;
}

function replaceOnce(text, re, to) {
  if (!re.test(text)) throw new Error(`build-web: src/web/index.html has no ${re}`);
  return text.replace(re, to);
}
