import { CST, Lexer, type LineCounter, Parser } from 'yaml';
import { DuplicateWatch, Flood, pathOf } from './prescan-floods.js';
import type { ProblemCollector } from './problem-collector.js';

/** Caps the pre-scan enforces; read.ts passes LIMITS. */
export interface PrescanLimits {
  depth: number;
  aliases: number;
  tokens: number;
}

export interface PrescanResult {
  /** the top-level CST tokens, ready for yaml's Composer */
  tokens: CST.Token[];
  /**
   * True when the scan stopped before the end of the source (a fatal problem
   * or a flood). The tokens are then incomplete and must not be composed.
   */
  stopped: boolean;
}

/** The YAML 1.2 core schema's tags; any other tag is refused (docs/format.md, Reading). */
const CORE_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq']);
const VERBATIM_CORE = /^!<tag:yaml\.org,2002:([a-z]+)>$/;

/** `!!str` or `!<tag:yaml.org,2002:str>`; `!!` always means the core prefix because %TAG is refused. */
export function isCoreTag(tag: string): boolean {
  if (tag.startsWith('!!')) return CORE_TAGS.has(tag.slice(2));
  const m = VERBATIM_CORE.exec(tag);
  return m !== null && CORE_TAGS.has(m[1]!);
}

/** The parser's costliest tokens (about twice the others): they count double against `limits.tokens`. */
const FLOW_BRACKETS = new Set(['[', ']', '{', '}']);

/** Lexer output that marks a state change and stands for no source text. */
const ZERO_WIDTH = new Set([CST.DOCUMENT, CST.FLOW_END, CST.SCALAR]);

/**
 * One linear pass over yaml's own Lexer and Parser (docs/format.md, Reading)
 * that enforces the caps before anything is composed, because yaml's composer
 * recurses with the nesting and expands nothing lazily. It stops at the first
 * fatal problem:
 *
 * - a directive (`%YAML`, `%TAG`) is reported as `yaml.multiple_documents`:
 *   a template is one bare document, and `%YAML 1.1` would switch on 1.1 rules
 *   (merge keys, `yes` as a boolean) while `%TAG` would rename `!!`;
 * - a second document (a second `---`, even an empty one, or content after
 *   `...`) is `yaml.multiple_documents` at its start;
 * - an alias beyond `limits.aliases` is one `yaml.alias_limit` at that alias;
 * - nesting deeper than `limits.depth` collections is `limit.size` (path '')
 *   at the token where the cap was crossed — the depth cap is a size cap on
 *   the document's shape, so it shares the code;
 * - more than `limits.tokens` lexical tokens (flow brackets count twice) is
 *   `limit.size` too: yaml's Parser and Composer cost a microsecond or two
 *   per token, so 128 KiB of one-byte tokens (`[[[]]]…`, blank lines) would
 *   take half a second; a template at every cap (256 nodes, 1024 cords, every
 *   node with all its keys) counts about 48,000;
 * - a flood of duplicate keys (MAX_PROBLEMS_PER_CODE of them, spotted on the
 *   CST as each key is completed) or of syntax errors the parser yields
 *   outside any document (stray `]`, `}`) is reported then and there. Fewer
 *   are left to the composer and duplicate-keys.ts, which report them (and
 *   more) in full.
 *
 * Tags outside the core schema are `yaml.tag` at the tag and do not stop the
 * scan unless they flood the collector.
 *
 * The Parser builds the CST with an explicit stack, so its length is the
 * current nesting and checking it per token keeps the whole pass linear.
 */
export function prescan(
  source: string,
  lineCounter: LineCounter,
  out: ProblemCollector,
  limits: PrescanLimits,
): PrescanResult {
  const tokens: CST.Token[] = [];
  const parser = new Parser(lineCounter.addNewLine);
  // Parser.parse() records the first line itself; feeding lexemes by hand, we do.
  lineCounter.addNewLine(0);
  let offset = 0;
  let atScalar = false;
  let previous = '';
  let documents = 0;
  let aliases = 0;
  let count = 0;
  const duplicates = new DuplicateWatch();
  const errors = new Flood();

  const stop = (): PrescanResult => ({ tokens, stopped: true });

  for (const lexeme of new Lexer().lex(source)) {
    count += FLOW_BRACKETS.has(lexeme) ? 2 : 1;
    if (count > limits.tokens) {
      out.add('limit.size', `more than ${limits.tokens} YAML tokens`, '', offset);
      return stop();
    }
    // The lexeme after a scalar marker is the scalar's text, whatever it starts with.
    const type: string | null = atScalar ? 'scalar-text' : CST.tokenType(lexeme);
    atScalar = type === 'scalar';
    switch (type) {
      case 'directive-line':
        out.add('yaml.multiple_documents', 'a directive (%YAML, %TAG) is not allowed: a template is one plain YAML 1.2 document', '', offset);
        return stop();
      case 'doc-mode':
      case 'doc-start':
        // `---` right after the lexer entered a document belongs to that document.
        if (type === 'doc-start' && previous === CST.DOCUMENT) break;
        if (++documents > 1) {
          out.add('yaml.multiple_documents', 'a second YAML document: a template is exactly one document', '', offset);
          return stop();
        }
        break;
      case 'alias':
        if (++aliases > limits.aliases) {
          out.add('yaml.alias_limit', `more than ${limits.aliases} aliases`, '', offset);
          return stop();
        }
        break;
    }
    for (const token of parser.next(lexeme)) {
      tokens.push(token);
      if (token.type === 'error' && errors.push(token.offset, token.message) && errors.flush(out, 'yaml.syntax', '')) return stop();
    }
    if (type === 'tag' && !isCoreTag(lexeme)) {
      const message = `the tag ${lexeme.slice(0, 40)} is not allowed: only the YAML 1.2 core tags are`;
      if (!out.add('yaml.tag', message, pathOf(parser.stack), offset)) return stop();
    }
    if (type === 'map-value-ind' && duplicates.keyDone(parser.stack) && duplicates.found.flush(out, 'yaml.duplicate_key')) {
      return stop();
    }
    if (parser.stack.length - 1 > limits.depth && nesting(parser.stack) > limits.depth) {
      out.add('limit.size', `nested deeper than ${limits.depth} collections`, '', offset);
      return stop();
    }
    if (!ZERO_WIDTH.has(lexeme)) offset += lexeme.length;
    previous = lexeme;
  }
  for (const token of parser.end()) tokens.push(token);
  return { tokens, stopped: false };
}

/** Collections open on the parser's stack (the document and a pending scalar do not count). */
function nesting(stack: readonly CST.Token[]): number {
  let n = 0;
  for (const t of stack) if (t.type === 'block-map' || t.type === 'block-seq' || t.type === 'flow-collection') n++;
  return n;
}
