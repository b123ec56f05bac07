/**
 * The layer rules of .dependency-cruiser.cjs (`npm run lint`) catch what they
 * are for. A copy of src/ is cruised twice, as it is and with planted imports:
 * a climbing `import type` (gone from compiled JavaScript, so this proves the
 * sources are parsed as written), a climbing value import, a cycle, the page
 * reaching past schema/template, an import that resolves to nothing, the
 * MCP tools climbing to the routes, a route other than its mount reaching
 * the MCP tools, the card app reaching the library, a route and the top
 * reaching past the library's face (src/library/index.ts), a library module
 * importing the face, the library's core importing a feature, and allowed
 * imports (downward; the face; a feature using the core). The planted copy
 * must add exactly the expected violations, each under its rule, and the
 * clean copy's graph must hold the real tree, so the rules can never pass by
 * parsing nothing.
 *
 * scripts/library-parts.mjs (the same lint, for what paths alone cannot
 * say) runs on both copies too: two parts of src/library planted to import
 * each other with no module cycle, and the planted cycle's two files, are
 * the pairs it adds, and it fails.
 *
 * Violations already in src/ (if any) show in both runs and cancel out here;
 * `npm run lint` is what fails on them.
 */
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { packageRoot } from '../src/paths.js';
import { spawnChild } from './children.js';

const BIN = join(packageRoot, 'node_modules', 'dependency-cruiser', 'bin');
const CONFIG = '.dependency-cruiser.cjs';

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
}
interface Cruise {
  /** exit code of the `err` report, as `npm run lint` prints it */
  code: number | null;
  report: string;
  violations: Violation[];
  /** the .ts modules of src/ in the graph */
  srcModules: string[];
  /** scripts/library-parts.mjs: its exit code and the pairs it fails on, `A ⇄ B` */
  parts: { code: number | null; errors: string[] };
}

const PARTS = join('scripts', 'library-parts.mjs');

/** A copy of src/, the config and the parts check in a fresh folder; node_modules linked so packages resolve as in the repo. */
function copyTree(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir);
  cpSync(join(packageRoot, 'src'), join(dir, 'src'), { recursive: true });
  cpSync(join(packageRoot, CONFIG), join(dir, CONFIG));
  cpSync(join(packageRoot, PARTS), join(dir, PARTS));
  symlinkSync(join(packageRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** The first .ts file under `dir` in the copy at `root` (its path there): whatever the tree holds today, so moves in src/ do not break this test. */
function someModule(root: string, dir: string): string {
  const file = readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .sort()[0];
  if (!file) throw new Error(`no .ts file under ${dir}`);
  return `${dir}/${file}`;
}

function plant(root: string, file: string, text: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
}

/** `from` importing `to` (both paths of the copy), as the NodeNext `.js` specifier the codebase writes. */
function specifier(from: string, to: string): string {
  const rel = posix.relative(posix.dirname(from), to).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** Runs a dependency-cruiser bin (or, given a path, that script) in `cwd`; its exit code and output. */
function run(cwd: string, bin: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = bin.includes('/') ? join(cwd, bin) : join(BIN, bin);
  const child: ChildProcess = spawnChild(process.execPath, [script, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Cruises the copy in `cwd` with the repo's config into JSON, then formats that with the `err`
 * reporter `npm run lint` prints: its exit code (the number of errors) and text are the lint's.
 */
async function cruise(cwd: string): Promise<Cruise> {
  const out = join(cwd, 'cruise.json');
  const c = await run(cwd, 'dependency-cruise.mjs', ['--config', CONFIG, '--output-type', 'json', '--output-to', out, 'src']);
  if (c.code !== 0 || !existsSync(out)) throw new Error(`the cruiser failed (exit ${c.code}): ${c.stderr}`);
  const r = JSON.parse(readFileSync(out, 'utf8')) as { summary: { violations: Violation[] }; modules: { source: string }[] };
  const lint = await run(cwd, 'depcruise-fmt.mjs', ['--exit-code', '--output-type', 'err', out]);
  const parts = await run(cwd, 'scripts/library-parts.mjs', []);
  return {
    code: lint.code,
    report: lint.stdout,
    violations: r.summary.violations,
    srcModules: r.modules.map((m) => m.source).filter((s) => s.startsWith('src/') && s.endsWith('.ts')),
    parts: { code: parts.code, errors: [...parts.stdout.matchAll(/^ {2}error library-parts: (.+)$/gm)].map((m) => m[1]!) },
  };
}

/** one line per violation; a cycle is reported once, from whichever of its modules is met first, so it is named by both ends */
const key = (v: Pick<Violation, 'from' | 'to'> & { rule: string }) =>
  v.rule === 'no-circular' ? `${v.rule}: ${[v.from, v.to].sort().join(' ↔ ')}` : `${v.rule}: ${v.from} → ${v.to}`;

const installed = existsSync(join(BIN, 'dependency-cruise.mjs'));
describe.skipIf(!installed)(installed ? 'layer rules' : 'layer rules (skipped: dependency-cruiser is not installed; run `npm install`)', () => {
  let parent = '';
  let clean: Cruise;
  let planted: Cruise;
  /** the edges planted to break a rule */
  let expected: { rule: string; from: string; to: string }[] = [];

  beforeAll(async () => {
    parent = mkdtempSync(join(tmpdir(), 'desk-layers-'));
    const cleanDir = copyTree(parent, 'clean');
    const dir = copyTree(parent, 'planted');

    const library = someModule(dir, 'src/library');
    const http = someModule(dir, 'src/http');
    const template = someModule(dir, 'src/template');
    const schema = someModule(dir, 'src/schema');
    const mcp = someModule(dir, 'src/mcp');
    // a feature above the library's core (docs/architecture.md, Floors), and a module of the core
    const feature = someModule(dir, 'src/library/upgrade');
    const core = someModule(dir, 'src/library/disk');
    const files = {
      typeClimb: 'src/template/zz-type-climb.ts',
      valueClimb: 'src/schema/zz-value-climb.ts',
      cycleA: 'src/library/zz-cycle-a.ts',
      cycleB: 'src/library/zz-cycle-b.ts',
      web: 'src/web/zz-reach.ts',
      missing: 'src/http/zz-missing.ts',
      down: 'src/http/zz-down.ts',
      mcpClimb: 'src/mcp/zz-climb.ts',
      mcpFromHttp: 'src/http/zz-mcp-reach.ts',
      mcpApp: 'src/mcp-app/zz-reach.ts',
      pastFace: 'src/http/zz-past-face.ts',
      topPastFace: 'src/cli/zz-past-face.ts',
      toFace: 'src/library/zz-to-face.ts',
      coreToFeature: 'src/library/zz-core-to-feature.ts',
      featureToCore: 'src/library/upgrade/zz-feature-to-core.ts',
      partA: 'src/library/zz-part-a.ts',
      partB: 'src/library/zz-part/b.ts',
      partC: 'src/library/zz-part/c.ts',
    };
    // erased by tsc: only a parser of the sources sees it
    plant(dir, files.typeClimb, `import type { Anything } from '${specifier(files.typeClimb, library)}';\nexport type T = Anything;\n`);
    plant(dir, files.valueClimb, `export * from '${specifier(files.valueClimb, http)}';\n`);
    plant(dir, files.cycleA, `import type { B } from './zz-cycle-b.js';\nexport type A = B;\n`);
    plant(dir, files.cycleB, `import { a } from './zz-cycle-a.js';\nexport const b = a;\n`);
    plant(dir, files.web, `import { x } from '${specifier(files.web, library)}';\nexport const y = x;\n`);
    plant(dir, files.mcpClimb, `import '${specifier(files.mcpClimb, http)}';\n`);
    plant(dir, files.mcpFromHttp, `import '${specifier(files.mcpFromHttp, mcp)}';\n`);
    plant(dir, files.mcpApp, `import '${specifier(files.mcpApp, library)}';\n`);
    plant(dir, files.missing, `import '../library/zz-no-such-module.js';\n`);
    plant(dir, files.pastFace, `import '${specifier(files.pastFace, core)}';\n`);
    plant(dir, files.topPastFace, `import type { X } from '${specifier(files.topPastFace, feature)}';\nexport type Y = X;\n`);
    plant(dir, files.toFace, `import '${specifier(files.toFace, 'src/library/index.ts')}';\n`);
    plant(dir, files.coreToFeature, `import type { X } from '${specifier(files.coreToFeature, feature)}';\nexport type Y = X;\n`);
    plant(dir, files.featureToCore, `import '${specifier(files.featureToCore, core)}';\n`);
    // two parts of src/library importing each other, through different modules: no module cycle, so only the parts check sees it
    plant(dir, files.partA, `import './zz-part/b.js';\n`);
    plant(dir, files.partB, `export const b = 1;\n`);
    plant(dir, files.partC, `import '../zz-part-a.js';\n`);
    plant(dir, files.down, `import '${specifier(files.down, template)}';\nimport '${specifier(files.down, schema)}';\nimport '${specifier(files.down, 'src/errors.ts')}';\nimport '${specifier(files.down, 'src/library/index.ts')}';\nimport type { Library } from '${specifier(files.down, 'src/library/types.ts')}';\nexport type L = Library;\nimport 'node:fs';\nimport 'fastify';\n`);
    expected = [
      { rule: 'template-not-to-library', from: files.typeClimb, to: library },
      { rule: 'schema-not-to-http', from: files.valueClimb, to: http },
      { rule: 'no-circular', from: files.cycleA, to: files.cycleB },
      { rule: 'no-circular', from: files.cycleB, to: files.cycleA },
      { rule: 'web-only-to-schema-template', from: files.web, to: library },
      { rule: 'not-to-unresolvable', from: files.missing, to: '../library/zz-no-such-module.js' },
      { rule: 'mcp-not-to-http', from: files.mcpClimb, to: http },
      { rule: 'http-to-mcp-only-to-mount', from: files.mcpFromHttp, to: mcp },
      { rule: 'mcp-app-only-to-web-schema-template', from: files.mcpApp, to: library },
      { rule: 'outside-library-only-to-face', from: files.pastFace, to: core },
      { rule: 'outside-library-only-to-face', from: files.topPastFace, to: feature },
      { rule: 'library-not-to-face', from: files.toFace, to: 'src/library/index.ts' },
      { rule: 'library-core-not-to-features', from: files.coreToFeature, to: feature },
    ];

    // both at once: one cruise is a few seconds of one core
    [clean, planted] = await Promise.all([cruise(cleanDir), cruise(dir)]);
  });

  afterAll(() => {
    if (parent) rmSync(parent, { recursive: true, force: true });
  });

  test('the clean copy is parsed whole: every layer is in the graph', () => {
    expect(clean.srcModules.length).toBeGreaterThan(100);
    for (const layer of ['src/template/', 'src/schema/', 'src/library/', 'src/mcp/', 'src/http/', 'src/web/', 'src/mcp-app/']) {
      expect(clean.srcModules.filter((m) => m.startsWith(layer)).length, layer).toBeGreaterThan(0);
    }
    expect(clean.srcModules).toContain('src/server.ts');
  });

  test('each planted import fails under its rule, the cruiser exits non-zero, and the downward import passes', () => {
    const keys = (vs: Violation[]) => new Set(vs.map((v) => key({ ...v, rule: v.rule.name })));
    const before = keys(clean.violations);
    const added = [...keys(planted.violations)].filter((k) => !before.has(k)).sort();
    expect(added).toEqual([...new Set(expected.map(key))].sort());
    expect(planted.violations.every((v) => v.rule.severity === 'error')).toBe(true);
    // as `npm run lint` reports it: a non-zero exit (one per error, each edge of a cycle counted), each edge under its rule
    expect(planted.code! - clean.code!).toBeGreaterThanOrEqual(expected.length);
    for (const e of expected) expect(planted.report).toContain(`error ${e.rule}: ${e.from} → ${e.to}\n`);
  });

  test("the parts check adds the planted pairs of src/library's parts, and fails on them", () => {
    expect(clean.parts.code).toBe(0);
    expect(clean.parts.errors).toEqual([]);
    // the planted module cycle is two top-level files of src/library, so two parts as well
    expect(planted.parts.errors).toEqual(['src/library/zz-cycle-a.ts ⇄ src/library/zz-cycle-b.ts', 'src/library/zz-part-a.ts ⇄ src/library/zz-part/']);
    expect(planted.parts.code).toBe(2);
    // no module cycle among them: only the parts check could see it
    expect(planted.violations.filter((v) => v.rule.name === 'no-circular' && v.from.includes('zz-part'))).toEqual([]);
  });
});
