import { type Alias, isAlias, isMap, isScalar, isSeq, type Node } from 'yaml';
import type { ProblemCollector } from './problem-collector.js';
import { pointer } from './problems.js';

/**
 * The key as the JSON object built from the template would spell it: the
 * scalar's value as a string, `''` for null (as yaml's toJS does). So `1` and
 * `"1"`, or `~` and `null`, are the same key — they collide in JSON. Keys that
 * are collections have no such spelling and are left to the validator.
 */
function keyString(key: unknown, targets: ReadonlyMap<Alias, Node>): string | undefined {
  const node = isAlias(key) ? targets.get(key) : key;
  if (!isScalar(node)) return undefined;
  return node.value === null || node.value === undefined ? '' : String(node.value);
}

/**
 * Reports each key that repeats an earlier key of its mapping as
 * `yaml.duplicate_key` at the repeat, with its JSON Pointer path. One pass
 * with a Set per mapping: linear, where yaml's own `uniqueKeys` check compares
 * each key with every earlier one. Stops when the collector floods.
 * Aliases are not followed: a duplicate inside an anchored mapping is
 * reported once, where it is written.
 */
export function checkDuplicateKeys(contents: unknown, targets: ReadonlyMap<Alias, Node>, out: ProblemCollector): void {
  const path: (string | number)[] = [];

  function visit(node: unknown): boolean {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = keyString(pair.key, targets);
        if (key === undefined) continue;
        path.push(key);
        if (seen.has(key)) {
          const at = (pair.key as Node).range?.[0];
          if (!out.add('yaml.duplicate_key', `the key ${JSON.stringify(key.slice(0, 64))} appears twice in this mapping`, pointer(path), at)) return false;
        }
        seen.add(key);
        const more = visit(pair.value);
        path.pop();
        if (!more) return false;
      }
    } else if (isSeq(node)) {
      for (let i = 0; i < node.items.length; i++) {
        path.push(i);
        const more = visit(node.items[i]);
        path.pop();
        if (!more) return false;
      }
    }
    return true;
  }

  visit(contents);
}
