/**
 * No module-level mutable state and no import-time side effects in
 * src/library and src/web: whoever needs state gets it as an object its
 * caller made (openLibrary, the page's entry module), so two libraries in one
 * process, or a test that opens many, never share a cache, a lock table or a
 * handler, and importing a module never changes the process. The page's two
 * entry modules (src/web/main.ts and src/web/validator-worker.ts) are where
 * those objects are made, and are left out.
 *
 * The sources are parsed as written (swc, as dependency-cruiser does:
 * .dependency-cruiser.cjs), and each top-level statement must be one of:
 * - an import or export, a function, class, interface, type or enum;
 * - a `const` whose value is no module-level instance: `new` only for a
 *   RegExp, a TextEncoder/TextDecoder, or a Set/Map declared `ReadonlySet`/
 *   `ReadonlyMap` (a constant table), and no call of an effect (process,
 *   timers, listeners, the DOM's globals, fetch) outside a function body.
 * No `let` or `var`, no bare statement (a call, an assignment, a loop), and
 * no top-level binding — the module's own or one it imports from the
 * project — written through anywhere in the file: a member assigned,
 * deleted or incremented, or a mutating method called on it (set, add,
 * push, …). The planted snippets below prove each branch.
 *
 * Not seen: a constant table mutated through an alias (`const t = TABLE;
 * t.push(…)`), or by another module through an import of an import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseSync } from '@swc/core';
import { describe, expect, test } from 'vitest';
import { packageRoot } from '../src/paths.js';

type Rule = 'let-or-var' | 'statement' | 'instance' | 'effect' | 'mutated';
interface Finding {
  file: string;
  line: number;
  rule: Rule;
  what: string;
}

const DIRS = ['src/library', 'src/web'];
/** the page's entry modules, where the page's objects are made */
const ENTRIES = new Set(['src/web/main.ts', 'src/web/validator-worker.ts']);

/** classes whose instances hold no state a module could share */
const STATELESS = new Set(['RegExp', 'TextEncoder', 'TextDecoder']);
/** containers allowed as constant tables when typed read-only */
const TABLES: Record<string, string> = { Set: 'ReadonlySet', Map: 'ReadonlyMap' };
/** globals whose calls act on the process or the page */
const EFFECT_ROOTS = new Set(['process', 'window', 'document', 'globalThis', 'self', 'navigator', 'location', 'history', 'localStorage', 'sessionStorage', 'console']);
/** functions and methods that start something or listen */
const EFFECT_CALLS = new Set(['setInterval', 'setTimeout', 'setImmediate', 'queueMicrotask', 'requestAnimationFrame', 'fetch', 'addEventListener', 'on', 'once', 'addListener']);
/** methods that change a Map, Set, array or object they are called on */
const MUTATORS = new Set(['set', 'add', 'delete', 'clear', 'push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin']);
const DECLARATIONS = new Set(['ImportDeclaration', 'ExportAllDeclaration', 'ExportNamedDeclaration', 'ExportDefaultDeclaration', 'FunctionDeclaration', 'ClassDeclaration', 'TsInterfaceDeclaration', 'TsTypeAliasDeclaration', 'TsEnumDeclaration', 'TsModuleDeclaration', 'TsImportEqualsDeclaration', 'EmptyStatement']);
const FUNCTIONS = new Set(['ArrowFunctionExpression', 'FunctionExpression', 'ClassExpression', 'FunctionDeclaration', 'ClassDeclaration', 'MethodProperty', 'GetterProperty', 'SetterProperty']);

// biome-ignore lint/suspicious/noExplicitAny: swc's AST, walked generically
type Node = any;

/** Every node under `n`, in order; function and class bodies skipped when `shallow`. */
function* walk(n: Node, shallow = false): Generator<Node> {
  if (Array.isArray(n)) {
    for (const c of n) yield* walk(c, shallow);
    return;
  }
  if (!n || typeof n !== 'object') return;
  if (typeof n.type === 'string') {
    yield n;
    if (shallow && FUNCTIONS.has(n.type)) return;
  }
  for (const k in n) if (k !== 'span') yield* walk(n[k], shallow);
}

const key = (id: Node) => `${id.value}#${id.ctxt}`;

/** The identifiers a binding pattern declares (its type annotations left out). */
function bound(pattern: Node): Node[] {
  if (!pattern || typeof pattern !== 'object') return [];
  if (Array.isArray(pattern)) return pattern.flatMap(bound);
  if (pattern.type === 'Identifier') return [pattern];
  return Object.entries(pattern).flatMap(([k, v]) => (k === 'typeAnnotation' || k === 'span' || k === 'key' || k === 'value' && pattern.type === 'AssignmentPatternProperty' ? [] : bound(v)));
}

/** The identifier at the root of a member chain (`a.b.c` → a), or null. */
function rootOf(e: Node): Node | null {
  while (['MemberExpression', 'TsNonNullExpression', 'ParenthesisExpression', 'TsAsExpression', 'TsSatisfiesExpression', 'TsTypeAssertion'].includes(e?.type)) e = e.object ?? e.expression;
  return e?.type === 'Identifier' ? e : null;
}

function propName(member: Node): string | null {
  return member?.type === 'MemberExpression' && member.property?.type === 'Identifier' ? member.property.value : null;
}

function moduleStateFindings(file: string, text: string): Finding[] {
  const ast = parseSync(text, { syntax: 'typescript', target: 'es2022', comments: false });
  const bytes = Buffer.from(text);
  const lineAt = (span: { start: number }) => bytes.subarray(0, Math.max(0, span.start - 1)).toString().split('\n').length;
  const found: Finding[] = [];
  const say = (node: Node, rule: Rule, what: string) => found.push({ file, line: lineAt(node.span), rule, what });
  /** the module's top-level bindings and its project imports, by name and syntax context */
  const top = new Map<string, string>();

  for (const stmt of ast.body as Node[]) {
    if (stmt.type === 'ImportDeclaration' && !stmt.typeOnly && /^\.\.?\//.test(stmt.source.value)) {
      for (const s of stmt.specifiers) top.set(key(s.local), s.local.value);
    }
    const decl = stmt.type === 'ExportDeclaration' ? stmt.declaration : stmt;
    if (decl.type === 'VariableDeclaration') {
      if (decl.declare) continue;
      for (const d of decl.declarations) {
        for (const id of bound(d.id)) top.set(key(id), id.value);
        if (decl.kind !== 'const') {
          say(decl, 'let-or-var', `${decl.kind} ${bound(d.id).map((i) => i.value).join(', ')}`);
          continue;
        }
        checkInit(d, say);
      }
      continue;
    }
    if (stmt.type === 'ExportDeclaration' || DECLARATIONS.has(stmt.type)) continue;
    say(stmt, 'statement', stmt.type);
  }

  // a top-level binding written through, anywhere in the file
  for (const n of walk(ast.body)) {
    let target: Node = null;
    let how = '';
    if (n.type === 'AssignmentExpression' && n.left?.type === 'MemberExpression') [target, how] = [n.left, `${n.operator}`];
    else if (n.type === 'UpdateExpression' && n.argument?.type === 'MemberExpression') [target, how] = [n.argument, n.operator];
    else if (n.type === 'UnaryExpression' && n.operator === 'delete') [target, how] = [n.argument, 'delete'];
    else if (n.type === 'CallExpression' && MUTATORS.has(propName(n.callee) ?? '')) [target, how] = [n.callee.object, `.${propName(n.callee)}()`];
    else if (n.type === 'CallExpression' && rootOf(n.callee)?.value === 'Object' && propName(n.callee) === 'assign') [target, how] = [n.arguments[0]?.expression, 'Object.assign()'];
    const root = rootOf(target);
    if (root && top.has(key(root))) say(n, 'mutated', `${root.value} ${how}`);
  }
  return found;
}

function checkInit(d: Node, say: (node: Node, rule: Rule, what: string) => void): void {
  const name = bound(d.id).map((i) => i.value).join(', ');
  const typed = d.id.typeAnnotation?.typeAnnotation;
  const typeName = typed?.type === 'TsTypeReference' ? typed.typeName?.value : undefined;
  for (const n of walk(d.init, true)) {
    if (n.type === 'NewExpression') {
      const cls = n.callee?.type === 'Identifier' ? n.callee.value : '?';
      if (STATELESS.has(cls) || (TABLES[cls] && n === d.init && typeName === TABLES[cls])) continue;
      say(n, 'instance', `${name} = new ${cls}`);
    }
    if (n.type === 'CallExpression') {
      const callee = n.callee;
      const root = rootOf(callee);
      const called = callee?.type === 'Identifier' ? callee.value : propName(callee);
      if ((root && EFFECT_ROOTS.has(root.value)) || EFFECT_CALLS.has(called ?? '')) say(n, 'effect', `${name} = ${root?.value ?? ''}…${called ?? ''}()`);
    }
  }
}

function sources(): string[] {
  return DIRS.flatMap((dir) =>
    readdirSync(join(packageRoot, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => join(dir, f))
      .filter((f) => !ENTRIES.has(f)),
  );
}

test('src/library and src/web keep no module-level mutable state and do nothing at import', () => {
  const files = sources();
  // the walk found the tree: both folders, dozens of modules each
  expect(files.filter((f) => f.startsWith('src/library/')).length).toBeGreaterThan(20);
  expect(files.filter((f) => f.startsWith('src/web/')).length).toBeGreaterThan(20);
  const findings = files.flatMap((f) => moduleStateFindings(f, readFileSync(join(packageRoot, f), 'utf8')));
  expect(findings.map((f) => `${relative('.', f.file)}:${f.line} ${f.rule}: ${f.what}`)).toEqual([]);
});

describe('each kind of state or effect is found (planted)', () => {
  const rules = (text: string) => moduleStateFindings('planted.ts', text).map((f) => f.rule);
  test.each<[string, string, Rule[]]>([
    ['a top-level let', 'let n = 0;\nexport function next() { return n++; }', ['let-or-var']],
    ['an exported let', 'export let current: string | null = null;', ['let-or-var']],
    ['a top-level var', 'var seen = false;', ['let-or-var']],
    ['a call at import', "process.on('exit', () => {});", ['statement']],
    ['a listener at import', "window.addEventListener('hashchange', () => {});", ['statement']],
    ['a loop at import', 'for (const k of []) console.log(k);', ['statement']],
    ['a module-level Map', 'const cache = new Map<string, number>();', ['instance']],
    ['a WeakMap', 'const of = new WeakMap<object, string>();', ['instance']],
    ['a class instance', 'class Kept {}\nconst walks = new Kept();', ['instance']],
    ['a Set not typed read-only', "const KNOWN = new Set(['a']);", ['instance']],
    ['a timer started by a const', 'const timer = setInterval(() => {}, 1000);', ['effect']],
    ['a process handler bound to a const', "const off = process.on('exit', () => {});", ['effect']],
    ['an instance in a table', 'const EMPTY = { nodes: new Map<string, number>(), list: [] };', ['instance']],
    ['an object written through', 'const state = { n: 0 };\nexport function bump() { state.n += 1; }', ['mutated']],
    ['an array pushed to', 'const queue: string[] = [];\nexport function add(s: string) { queue.push(s); }', ['mutated']],
    ['a member deleted', 'const seen: Record<string, true> = {};\nexport function drop(k: string) { delete seen[k]; }', ['mutated']],
    ['a counter incremented', 'const counts = { n: 0 };\nexport function tick() { counts.n++; }', ['mutated']],
    ['an imported table changed', "import { TABLE } from './table.js';\nexport function grow() { TABLE.push('x'); }", ['mutated']],
    ['a read-only Set changed after all', "const T: ReadonlySet<string> = new Set(['a']);\nexport function f() { (T as Set<string>).add('b'); }", ['mutated']],
    ['an object assigned into', 'const o = {};\nexport function f() { Object.assign(o, { a: 1 }); }', ['mutated']],
  ])('%s', (_what, text, expected) => {
    expect(rules(text)).toEqual(expected);
  });

  test.each([
    ['constants, tables and functions', "const MAX = 16 * 1024;\nconst RE = /^a$/;\nconst NAME = new RegExp('^b$');\nconst KINDS = ['a', 'b'] as const;\nconst T: ReadonlySet<string> = new Set(['a']);\nconst M: ReadonlyMap<string, number> = new Map([['a', 1]]);\nconst silent = { info() {}, warn() {} };\nconst make = { fail(n: number) { return new Error(String(n)); }, get now() { return new Date(); } };\nexport const f = () => new Map();\nexport function g() { const m = new Map(); m.set(1, 2); return m; }"],
    ['a local that shadows a top-level name', "const cache = ['a'];\nexport function f() { const cache: string[] = []; cache.push('b'); return cache; }"],
    ['a class whose instances keep state', 'export class Queue { private readonly items: string[] = []; add(s: string) { this.items.push(s); } }'],
    ['an import from a package, used', "import { Type } from '@sinclair/typebox';\nexport const S = Type.Object({});"],
    ['a declared global', 'declare const __VERSION__: string;'],
  ])('allowed: %s', (_what, text) => {
    expect(moduleStateFindings('planted.ts', text)).toEqual([]);
  });
});
