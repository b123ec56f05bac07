// STUB — to be replaced by the hardened strict reader (issue 2 §2). The exported
// names and types below are the contract the validator builds on.
import { type Document, LineCounter, parseDocument } from 'yaml';
import { type Problem, problem } from './problems.js';

/** Caps from template-format.md §2. */
export const LIMITS = {
  /** UTF-8 bytes of source */
  sizeBytes: 128 * 1024,
  /** nesting of flow/block collections */
  depth: 64,
  /** alias nodes (`*a`) in one document */
  aliases: 64,
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
   */
  doc: Document.Parsed | null;
  /** turns offsets into 1-based line/column: `lineCounter.linePos(offset)` */
  lineCounter: LineCounter;
  /** problems found while reading, in source order */
  problems: Problem[];
}

/** Reads a template's source strictly (§2). Never throws. */
export function readSource(source: string): ReadResult {
  const lineCounter = new LineCounter();
  const problems: Problem[] = [];
  try {
    const doc = parseDocument(source, { lineCounter, version: '1.2', schema: 'core', merge: false, uniqueKeys: false });
    for (const e of doc.errors) problems.push(problem('yaml.syntax', e.message, '', positionAt(lineCounter, e.pos[0])));
    return { doc: doc.errors.length ? null : doc, lineCounter, problems };
  } catch (e) {
    problems.push(problem('yaml.syntax', String(e), ''));
    return { doc: null, lineCounter, problems };
  }
}

/** 1-based line and column of a source offset. */
export function positionAt(lineCounter: LineCounter, offset: number): { line: number; column: number } {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}
