#!/usr/bin/env node
/**
 * The MCP card app (src/mcp-app/, docs/conductor.md): one self-contained
 * HTML document, dist/mcp/template-card.html, that the service answers for
 * `ui://desk-library/template-card` (src/mcp/card-app.ts). The script is
 * src/mcp-app/card.ts bundled with the page's card and graph code
 * (src/web/card-view.ts and what it imports) and ext-apps' App API; the
 * style is the page's stylesheet and the app's few additions. Both go
 * inline: a host loads the document in a sandboxed frame that may fetch
 * nothing, so it names no other file. Run by scripts/build-web.mjs.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src', 'mcp-app');
const out = join(root, 'dist', 'mcp');
mkdirSync(out, { recursive: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: [join(src, 'card.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  write: false,
  legalComments: 'none',
  // the script goes inside <script>: esbuild escapes any `</script` in it
  supported: { 'inline-script': false },
  logLevel: 'warning',
});
const script = result.outputFiles[0].text;

const css = [readFileSync(join(root, 'src', 'web', 'style.css'), 'utf8'), readFileSync(join(src, 'card.css'), 'utf8')].join('\n');
if (/<\/style/i.test(css)) throw new Error('build-card-app: the stylesheet holds </style');

const html = readFileSync(join(src, 'card.html'), 'utf8')
  .replace('/*STYLE*/', () => css)
  .replace('/*SCRIPT*/', () => script);

const file = join(out, 'template-card.html');
const tmp = `${file}.${process.pid}`;
writeFileSync(tmp, html);
renameSync(tmp, file);
console.log(`build-card-app: ${relative(root, file)} (${Math.round(Buffer.byteLength(html) / 1024)} KiB)`);
