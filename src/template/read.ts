// The strict reader (docs/format.md, Reading): text in, one YAML 1.2 core
// document and the reading problems out. Three linear passes, so that no
// input is slow (see docs and bench/hostile.ts):
//   1. prescan.ts — yaml's Lexer and Parser, enforcing size, token count,
//      depth, alias count, directives, documents and tags before anything
//      is composed, and stopping at a flood of duplicate keys or errors;
//   2. yaml's Composer with hardened options (no pretty errors, no uniqueKeys,
//      no merge keys, core schema) over the pre-scanned CST;
//   3. aliases.ts (expansion, cycles) and duplicate-keys.ts over the AST.
import { type Alias, type CST, Composer, type Document, LineCounter, type Node } from 'yaml';
import { checkAliases } from './aliases.js';
import { checkDuplicateKeys } from './duplicate-keys.js';
import { prescan } from './prescan.js';
import { ProblemCollector } from './problem-collector.js';
import type { Problem, ProblemCode } from './problems.js';

/** The caps (docs/format.md, Reading; docs/problems.md, limit.*). */
export const LIMITS = {
  /** UTF-8 bytes of source */
  sizeBytes: 128 * 1024,
  /** nesting of flow/block collections */
  depth: 64,
  /** alias nodes (`*a`) in one document */
  aliases: 64,
  /** nodes that aliases add when expanded (the alias bomb under the alias count cap) */
  aliasExpansion: 10_000,
  /** lexical tokens of the source, part of the size cap (see prescan.ts) */
  tokens: 65_536,
  /** template nodes (checked by the validator) */
  nodes: 256,
  /** template cords (checked by the validator) */
  cords: 1024,
} as const;

export interface ReadResult {
  /**
   * The parsed document (YAML 1.2 core, no merge keys), or null when reading
   * failed so badly there is nothing safe to walk. When non-null, every alias
   * in it resolves within the cap and its nesting is within LIMITS.depth.
   *
   * Null after any `yaml.syntax`, `yaml.multiple_documents`,
   * `yaml.alias_limit` or `limit.size`, and when a flood of problems stopped
   * reading. Duplicate keys and custom tags still give the document (an
   * unknown tag reads as if absent), so the validator can report the rest;
   * of duplicate keys, lookups see the first.
   */
  doc: Document.Parsed | null;
  /** turns offsets into 1-based line/column: `lineCounter.linePos(offset)` */
  lineCounter: LineCounter;
  /** problems found while reading, in source order */
  problems: Problem[];
  /**
   * The node each alias in `doc` stands for. Prefer it to `alias.resolve(doc)`,
   * which walks the whole document on every call. Empty when `doc` is null.
   */
  aliasTargets: ReadonlyMap<Alias, Node>;
}

/**
 * Options for yaml's Composer. `prettyErrors` is off because prettifying is
 * quadratic in the number of errors; `uniqueKeys` is off because its check is
 * quadratic in the keys of a mapping (duplicate-keys.ts does it linearly);
 * `merge` is off so `<<` is an ordinary key; `version` and `schema` pin YAML
 * 1.2 core, so `yes` stays a string.
 */
const COMPOSE_OPTIONS = {
  version: '1.2',
  schema: 'core',
  merge: false,
  uniqueKeys: false,
  prettyErrors: false,
  strict: true,
  intAsBigInt: false,
  keepSourceTokens: false,
  stringKeys: false,
} as const;

/** Problems after which the document is not safe to walk. */
const FATAL: readonly ProblemCode[] = ['yaml.syntax', 'yaml.multiple_documents', 'yaml.alias_limit', 'limit.size'];

/** Reads a template's source strictly (docs/format.md, Reading). Never throws. */
export function readSource(source: string): ReadResult {
  const lineCounter = new LineCounter();
  const out = new ProblemCollector(lineCounter);
  let doc: Document.Parsed | null = null;
  let aliasTargets: ReadonlyMap<Alias, Node> = new Map();
  try {
    doc = withoutEnvReads(() => read(source, lineCounter, out));
    const fatal = () => out.flooded || FATAL.some((c) => out.has(c));
    if (doc && !fatal()) aliasTargets = checkAliases(doc, out, LIMITS);
    if (doc && !fatal()) checkDuplicateKeys(doc.contents, aliasTargets, out);
  } catch (e) {
    // yaml's own exceptions (and a stack overflow, should one get past the caps) are problems too.
    out.add('yaml.syntax', `the YAML could not be read: ${e instanceof Error ? e.message : String(e)}`, '');
    doc = null;
  }
  const unsafe = out.flooded || FATAL.some((c) => out.has(c));
  return {
    doc: unsafe ? null : doc,
    lineCounter,
    problems: out.sorted(),
    aliasTargets: unsafe ? new Map() : aliasTargets,
  };
}

/** Size check, pre-scan and compose; null when there is no document to check further. */
function read(source: string, lineCounter: LineCounter, out: ProblemCollector): Document.Parsed | null {
  // A UTF-16 code unit is 1 to 3 UTF-8 bytes (a surrogate pair, two units, is 4), so only a
  // source of more than a third of the cap in code units needs its bytes counted.
  if (source.length > LIMITS.sizeBytes || (source.length * 3 > LIMITS.sizeBytes && utf8Length(source) > LIMITS.sizeBytes)) {
    out.add('limit.size', `the source is over ${LIMITS.sizeBytes / 1024} KiB`, '');
    return null;
  }
  const scan = prescan(source, lineCounter, out, LIMITS);
  if (scan.stopped) return null;

  const docs = compose(scan.tokens, source.length);
  const doc = docs[0]!;
  if (docs.length > 1) {
    // The pre-scan counts documents; this is the composer agreeing with it.
    out.add('yaml.multiple_documents', 'a second YAML document: a template is exactly one document', '', docs[1]!.range[0]);
  }
  // Warnings (an unresolved tag, reported by the pre-scan as yaml.tag) are not problems.
  for (const e of doc.errors) {
    if (!out.add('yaml.syntax', e.message, '', e.pos[0])) break;
  }
  return doc;
}

/**
 * The UTF-8 byte count of a string, as Buffer.byteLength counts it (a lone
 * surrogate is 3 bytes, U+FFFD), without Node: the settings page bundles this
 * validator too (src/web/validator-worker.ts).
 */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Node's `process`, where there is one (the page bundles this reader too, and has none). */
const host = (globalThis as { process?: { env: object } }).process;
/** what `process.env` is while a source is read */
const NO_ENV = Object.freeze({});

/**
 * In Node, yaml's Parser and Composer read `process.env.LOG_TOKENS` and
 * `LOG_STREAM` (debugging switches) for every token they are fed, and every
 * read of `process.env` asks the operating system's environment. yaml (2.9)
 * has no option to skip those reads, and its build that does not make them
 * (browser/) is out of reach in Node: its exports map gives the `node`
 * condition the dist/ build and exports no path into browser/. Measured:
 * Parser and Composer over a shipped template take 30-40% longer with the
 * real environment (quick-fix.yaml 2.1 vs 1.5 ms, batch.yaml 6.4 vs
 * 4.9 ms); on the service that was a third of the validator's time (the
 * first list of 1,000 templates after a start: 4.1 → 2.8 s). Reading is
 * synchronous, so process.env is an empty object only while a source is
 * read and is restored before anything else runs, as with the stack traces
 * in compose() below. yaml's own debug logs are therefore off inside the
 * validator. This is the one place process.env is swapped.
 */
function withoutEnvReads<T>(f: () => T): T {
  if (!host) return f();
  const env = host.env;
  host.env = NO_ENV;
  try {
    return f();
  } finally {
    host.env = env;
  }
}

/** V8's stack trace bound (Node and Chromium both have it; the DOM lib's Error type does not say so) */
const V8Error = Error as ErrorConstructor & { stackTraceLimit: number };

/**
 * yaml's Composer makes an Error object per syntax error, and capturing each
 * one's stack trace is most of the cost of a flood of errors (30,000 stray
 * `]` take most of a second). Nothing reads those stacks, so they are turned
 * off while composing; the code is synchronous, so the global is restored
 * before anyone else can run.
 */
function compose(tokens: readonly CST.Token[], end: number): Document.Parsed[] {
  const composer = new Composer(COMPOSE_OPTIONS);
  const docs: Document.Parsed[] = [];
  const limit = V8Error.stackTraceLimit;
  V8Error.stackTraceLimit = 0;
  try {
    for (const token of tokens) for (const d of composer.next(token)) docs.push(d);
    // forceDoc: an empty source is one empty document (the validator says it is not a mapping).
    for (const d of composer.end(true, end)) docs.push(d);
  } finally {
    V8Error.stackTraceLimit = limit;
  }
  return docs;
}

/** 1-based line and column of a source offset. */
export function positionAt(lineCounter: LineCounter, offset: number): { line: number; column: number } {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}
