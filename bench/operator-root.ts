/**
 * A library root full of realistic operator templates for the library and
 * HTTP benchmarks: variants of the shipped templates, each under its own name
 * (the header's name matches the file name) with its own purpose, so every
 * file differs and every one validates as it would for an operator.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RACY_MS } from '../src/library/memos/entry-cache.js';
import { harnessDir } from '../src/paths.js';

export interface OperatorRoot {
  /** the temp folder holding `root/`; remove() deletes it */
  base: string;
  root: string;
  templatesDir: string;
  /** operator template names, sorted */
  names: string[];
  /** absolute paths of the operator template files, in `names` order */
  files: string[];
  remove(): Promise<void>;
}

function shippedSources(): [string, string][] {
  const dir = join(harnessDir, 'templates');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => [f.slice(0, -5), readFileSync(join(dir, f), 'utf8')]);
}

/** The i-th variant: a shipped template renamed `<name>-v<i>` with a purpose of its own. */
export function variant(shipped: [string, string][], i: number): [string, string] {
  const [orig, src] = shipped[i % shipped.length]!;
  const name = `${orig}-v${i}`;
  const text = src
    .replace(`  name: ${orig}\n`, `  name: ${name}\n`)
    .replace(/^ {2}purpose: (.*)$/m, (_m, p: string) => `  purpose: ${p} (operator variant ${i}, tuned for team ${i % 37})`);
  return [name, text];
}

/**
 * Writes `n` operator templates, then waits out the cache's racy window
 * (src/library/memos/entry-cache.ts) so the files are as old as an operator's library is: a
 * file younger than that is hashed again on every read, by design.
 */
export async function makeOperatorRoot(n: number, opts: { settle?: boolean } = {}): Promise<OperatorRoot> {
  const base = await mkdtemp(join(tmpdir(), 'desk-bench-'));
  const root = join(base, 'root');
  const templatesDir = join(root, 'templates');
  await mkdir(templatesDir, { recursive: true });
  const shipped = shippedSources();
  const made: [string, string][] = [];
  for (let i = 0; i < n; i++) made.push(variant(shipped, i));
  // a few at a time: fast, without opening thousands of files at once
  for (let i = 0; i < made.length; i += 64) {
    await Promise.all(made.slice(i, i + 64).map(([name, text]) => writeFile(join(templatesDir, `${name}.yaml`), text)));
  }
  if (opts.settle !== false) await new Promise((r) => setTimeout(r, RACY_MS + 100));
  const names = made.map(([name]) => name).sort();
  return {
    base,
    root,
    templatesDir,
    names,
    files: names.map((name) => join(templatesDir, `${name}.yaml`)),
    remove: () => rm(base, { recursive: true, force: true }),
  };
}

/** Sanity check for the benches: the root holds exactly the templates made. */
export async function countTemplates(dir: string): Promise<number> {
  return (await readdir(dir)).filter((f) => f.endsWith('.yaml')).length;
}
