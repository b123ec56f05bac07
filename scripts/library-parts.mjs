#!/usr/bin/env node
/**
 * The parts of src/library import each other one way only (`npm run lint`,
 * after the rules of .dependency-cruiser.cjs; tested by test/layers.test.ts).
 *
 * A part is a folder directly under src/library (`history/`, all of it) or a
 * file directly in it (`types.ts`). No part imports a part that imports it:
 * `types.ts → history/types.ts` and `history/recent.ts → types.ts` together
 * fail, though no module imports itself back, so dependency-cruiser's
 * `no-circular` (which follows modules) passes them, and its folder scope
 * counts every file of src/library as one folder. Type-only imports count:
 * the graph is the cruiser's, from the sources as written (swc), with the
 * repository's options.
 *
 * Prints each pair as `error library-parts: A ⇄ B` with the imports each
 * way, and exits with the number of pairs (0: none). The pairs in KNOWN are
 * printed as warnings and do not fail: each is one to take apart, and none
 * may be added to.
 *
 * Usage: node scripts/library-parts.mjs   (from the repository's root)
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { cruise } from 'dependency-cruiser';

const LIBRARY = 'src/library/';
const CONFIG = resolve('.dependency-cruiser.cjs');

/** Pairs allowed while one waits for its type or module to move (`A ⇄ B`, A sorted first): none today, and none may be added. */
const KNOWN = new Set([]);

/** `src/library/history/` for any module in that folder, `src/library/types.ts` for that file; null outside src/library. */
export function partOf(path) {
  if (!path.startsWith(LIBRARY)) return null;
  const rest = path.slice(LIBRARY.length);
  const slash = rest.indexOf('/');
  return slash === -1 ? path : `${LIBRARY}${rest.slice(0, slash + 1)}`;
}

/** Every pair of parts that import each other, each with the module imports that make it, either way. */
export function twoWay(modules) {
  /** "A\0B" → the imports from part A into part B */
  const edges = new Map();
  for (const m of modules) {
    const from = partOf(m.source);
    if (!from) continue;
    for (const d of m.dependencies) {
      const to = partOf(d.resolved);
      if (!to || to === from) continue;
      const key = `${from}\0${to}`;
      if (!edges.has(key)) edges.set(key, []);
      edges.get(key).push(`${m.source} → ${d.resolved}`);
    }
  }
  const pairs = [];
  for (const [key, there] of edges) {
    const [a, b] = key.split('\0');
    if (a > b) continue;
    const back = edges.get(`${b}\0${a}`);
    if (back) pairs.push({ a, b, imports: [...there.sort(), ...back.sort()] });
  }
  return pairs.sort((x, y) => `${x.a} ${x.b}`.localeCompare(`${y.a} ${y.b}`));
}

async function main() {
  const options = createRequire(import.meta.url)(CONFIG).options;
  // the graph only: the layer rules are the cruiser's own run
  const result = await cruise([LIBRARY.slice(0, -1)], { ...options, validate: false, doNotFollow: options.doNotFollow, exclude: { path: 'node_modules' } });
  const modules = result.output.modules;
  if (!modules.some((m) => m.source.startsWith(LIBRARY))) throw new Error(`no module under ${LIBRARY}: run this from the repository's root`);
  const all = twoWay(modules);
  const pairs = all.filter((p) => !KNOWN.has(`${p.a} ⇄ ${p.b}`));
  for (const p of all) {
    const level = pairs.includes(p) ? 'error' : 'warn';
    process.stdout.write(`  ${level} library-parts: ${p.a} ⇄ ${p.b}\n${p.imports.map((i) => `      ${i}\n`).join('')}`);
  }
  const found = new Set(all.map((p) => `${p.a} ⇄ ${p.b}`));
  for (const k of KNOWN) if (!found.has(k)) process.stdout.write(`  info library-parts: ${k} is taken apart: remove it from KNOWN in scripts/library-parts.mjs\n`);
  process.stdout.write(
    pairs.length
      ? `\nx ${pairs.length} pair(s) of src/library's parts import each other (scripts/library-parts.mjs): move what both need to where it belongs.\n`
      : `✔ no new pair of src/library's parts imports each other (${modules.filter((m) => m.source.startsWith(LIBRARY)).length} modules; ${all.length} known pair(s) left to take apart)\n`,
  );
  process.exitCode = Math.min(pairs.length, 125);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) await main();
