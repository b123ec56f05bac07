import { type Alias, type Document, isAlias, isCollection, isMap, isPair, isScalar, type Node } from 'yaml';
import type { ProblemCollector } from './problem-collector.js';

export interface AliasLimits {
  depth: number;
  aliasExpansion: number;
}

interface Measure {
  /** nodes in the subtree with every alias expanded */
  size: number;
  /** collections on the longest path down, aliases expanded (0 for a scalar) */
  height: number;
}

class Stop extends Error {}

/**
 * Resolves every alias once, in document order, and measures what it expands
 * to, so that whoever walks the document with aliases followed stays within
 * the caps (docs/format.md, Reading). Under the alias count cap a chain of
 * doubling anchors still expands to 2^60 nodes; and an alias inside its own
 * anchor (`&a [*a]`) is a cycle. Both are `yaml.alias_limit`; an alias whose
 * expansion nests deeper than `limits.depth` is `limit.size`; an alias to no
 * anchor (which yaml composes without complaint) is `yaml.syntax`. Linear: each
 * anchored node is measured once and an alias reuses its measure.
 *
 * Returns the target of each alias (the last node anchored with its name
 * before it, as YAML says), so callers can resolve aliases without yaml's
 * `Alias.resolve`, which walks the whole document on every call.
 */
export function checkAliases(doc: Document.Parsed, out: ProblemCollector, limits: AliasLimits): Map<Alias, Node> {
  const targets = new Map<Alias, Node>();
  const anchors = new Map<string, Node>();
  const measured = new Map<Node, Measure>();
  let expansion = 0;

  const fail = (code: 'yaml.alias_limit' | 'limit.size' | 'yaml.syntax', message: string, node: Node): never => {
    out.add(code, message, '', node.range?.[0]);
    throw new Stop();
  };

  function visit(node: unknown, depth: number): Measure {
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      // yaml composes an alias to no anchor without complaint; resolving it later yields nothing.
      if (!target) return fail('yaml.syntax', `the alias *${node.source} names no anchor before it`, node);
      targets.set(node, target);
      const m = measured.get(target);
      if (!m) return fail('yaml.alias_limit', `the alias *${node.source} sits inside its own anchor`, node);
      expansion += m.size;
      if (expansion > limits.aliasExpansion) {
        fail('yaml.alias_limit', `aliases expand to more than ${limits.aliasExpansion} nodes`, node);
      }
      if (depth + m.height > limits.depth) {
        fail('limit.size', `the alias *${node.source} expands deeper than ${limits.depth} collections`, node);
      }
      return m;
    }
    if (!isScalar(node) && !isCollection(node)) return { size: 0, height: 0 };
    // Anchors are visible from the node's start, as yaml's Alias.resolve sees them.
    if (node.anchor) anchors.set(node.anchor, node);
    let size = 1;
    let height = 0;
    if (isCollection(node)) {
      if (depth + 1 > limits.depth) fail('limit.size', `nested deeper than ${limits.depth} collections`, node);
      for (const item of node.items) {
        const parts = isMap(node) && isPair(item) ? [item.key, item.value] : [item];
        for (const part of parts) {
          const m = visit(part, depth + 1);
          size += m.size;
          if (m.height > height) height = m.height;
        }
      }
      height += 1;
    }
    const m = { size, height };
    if (node.anchor) measured.set(node, m);
    return m;
  }

  try {
    visit(doc.contents, 0);
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
  }
  return targets;
}
