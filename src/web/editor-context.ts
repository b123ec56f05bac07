/**
 * Where the cursor is in a template, for completion and hover: the mapping it
 * is in (a path of keys from the root, `*` for a list item) and whether it is
 * on a key or on a key's value. Read from the lines and their indentation
 * rather than a parse, because the text being typed is usually not valid YAML
 * yet. Block style and one-line flow maps (`{ type: builtin, builtin: … }`,
 * the shipped templates' cords) are both understood.
 */

export interface Spot {
  /** keys from the root to the mapping the cursor is in; `*` stands for a list item */
  path: string[];
  kind: 'key' | 'value' | 'scalar';
  /** the key whose value is being typed (kind `value`) */
  key?: string;
  /** offset where the word being typed starts */
  from: number;
  /** the word typed so far */
  prefix: string;
  /** keys already present in the same mapping (block style: the lines around; flow: the braces) */
  siblings: string[];
}

interface LineInfo {
  /** column of the first character after indentation and any `- ` markers */
  content: number;
  /** column of the innermost `- ` marker on the line, or -1 */
  marker: number;
  /** the key the line opens, if any (`key:`) */
  key: string | null;
  /** what follows `key:`, trimmed; '' when the value is on the next lines */
  value: string;
  blank: boolean;
}

const KEY_LINE = /^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*)|\s*)$/;

function info(line: string): LineInfo {
  let i = 0;
  while (line[i] === ' ') i++;
  let marker = -1;
  while (line[i] === '-' && (line[i + 1] === ' ' || i + 1 === line.length)) {
    marker = i;
    i += 2;
    while (line[i] === ' ') i++;
  }
  const rest = line.slice(i);
  if (rest === '' && marker === -1) return { content: i, marker, key: null, value: '', blank: true };
  if (rest.startsWith('#')) return { content: i, marker, key: null, value: '', blank: marker === -1 };
  const m = KEY_LINE.exec(stripComment(rest));
  return { content: i, marker, key: m ? m[1]! : null, value: m ? (m[2] ?? '').trim() : '', blank: false };
}

/** Drops a trailing ` # comment` outside quotes, so `key: # note` reads as a key with its value below. */
function stripComment(s: string): string {
  let quote = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || s[i - 1] === ' ')) return s.slice(0, i).trimEnd();
  }
  return s;
}

/**
 * The path of the mapping whose keys start at `col`, for the line `at`
 * (which is in that mapping), found by walking up to the line that opens it.
 * With `list`, `col` is the column of a `- ` marker and the answer is the
 * path of the list itself (whose key may sit at the same column:
 * `cords:` then `- { … }`). `null` when the line is inside a scalar (a
 * prompt's text), not a mapping.
 */
function containerPath(lines: readonly string[], at: number, col: number, list = false, depth = 0): string[] | null {
  if (depth > 64) return []; // deeper than the reader allows anyway
  for (let i = at - 1; i >= 0; i--) {
    const l = info(lines[i]!);
    if (l.blank) continue;
    if (list && l.marker === col) continue; // an earlier item of the same list
    if (!list && l.content === col && l.marker >= 0) {
      // the first key of the list item we are in: the list belongs to the key above the marker
      const outer = containerPath(lines, i, l.marker, true, depth + 1);
      return outer && [...outer, '*'];
    }
    const opens = l.content < col || (l.marker >= 0 && l.marker < col) || (list && l.content === col && l.marker < 0);
    if (opens) {
      if (l.key === null) return null;
      if (l.value !== '') return null; // a plain or block scalar continues here
      const above = l.marker >= 0 ? itemPath(lines, i, l, depth + 1) : containerPath(lines, i, l.content, false, depth + 1);
      return above && [...above, l.key];
    }
    // a sibling key at the same column, or deeper lines of an earlier sibling's value
  }
  return [];
}

/** The mapping a `- key: …` line opens: the item of the list under the key above its marker. */
function itemPath(lines: readonly string[], at: number, l: LineInfo, depth = 0): string[] | null {
  const outer = containerPath(lines, at, l.marker, true, depth);
  return outer && [...outer, '*'];
}

/** Keys of the block mapping at `col` that holds line `at`. */
function blockSiblings(lines: readonly string[], at: number, col: number): string[] {
  const keys: string[] = [];
  for (let i = at - 1; i >= 0; i--) {
    const l = info(lines[i]!);
    if (l.blank || l.content > col) continue;
    if (l.content < col) break;
    if (l.key) keys.push(l.key);
    if (l.marker >= 0) break; // the item's first line
  }
  for (let i = at + 1; i < lines.length; i++) {
    const l = info(lines[i]!);
    if (l.blank || l.content > col) continue;
    if (l.content < col || l.marker >= 0) break;
    if (l.key) keys.push(l.key);
  }
  return keys;
}

/** The open `{` of a flow map the cursor is in on this line, skipping quoted text and closed pairs. */
function openFlow(before: string): { brace: number; bracket: boolean } | null {
  const stack: { at: number; c: string }[] = [];
  let quote = '';
  for (let i = 0; i < before.length; i++) {
    const c = before[i]!;
    if (quote) {
      if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || before[i - 1] === ' ')) return null; // a comment
    else if (c === '{' || c === '[') stack.push({ at: i, c });
    else if (c === '}' || c === ']') stack.pop();
  }
  const top = stack[stack.length - 1];
  return top ? { brace: top.at, bracket: top.c === '[' } : null;
}

const WORD = /[\w.-]*$/;

/** The spot at `pos` in `text`. */
export function spotAt(text: string, pos: number): Spot {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  const lineEndAt = text.indexOf('\n', pos);
  const lineEnd = lineEndAt === -1 ? text.length : lineEndAt;
  const before = text.slice(lineStart, pos);
  const lines = text.split('\n');
  const at = countLines(text, lineStart);
  const prefix = WORD.exec(before)![0];
  const from = pos - prefix.length;

  const flow = openFlow(before);
  if (flow) {
    const head = info(before.slice(0, flow.brace));
    // `gate: { … }` is the mapping under key `gate`; `- { … }` is a list item
    let base: string[] | null;
    if (head.key !== null) {
      const outer = head.marker >= 0 ? itemPath(lines, at, head) : containerPath(lines, at, head.content);
      base = outer && [...outer, head.key];
    } else if (head.marker >= 0) base = itemPath(lines, at, head);
    else base = containerPath(lines, at, head.content);
    const inner = before.slice(flow.brace + 1);
    const segment = inner.slice(inner.lastIndexOf(',') + 1);
    const flowText = text.slice(lineStart + flow.brace + 1, lineEnd);
    const siblings = [...flowText.matchAll(/(?:^|,)\s*([A-Za-z_][\w.-]*)\s*:/g)].map((m) => m[1]!);
    if (base === null) return { path: [], kind: 'scalar', from, prefix, siblings: [] };
    if (flow.bracket) return { path: base, kind: 'value', key: head.key ?? undefined, from, prefix, siblings: [] };
    const colon = segment.indexOf(':');
    if (colon >= 0) return { path: base, kind: 'value', key: segment.slice(0, colon).trim(), from, prefix, siblings };
    return { path: base, kind: 'key', from, prefix, siblings: siblings.filter((k) => k !== prefix) };
  }

  const l = info(before);
  const rest = before.slice(l.content);
  const kv = /^([A-Za-z_][\w.-]*)\s*:\s+/.exec(rest);
  if (kv) {
    const path = l.marker >= 0 ? itemPath(lines, at, l) : containerPath(lines, at, l.content);
    if (path === null) return { path: [], kind: 'scalar', from, prefix, siblings: [] };
    return { path, kind: 'value', key: kv[1]!, from, prefix, siblings: [] };
  }
  if (/^[\w.-]*$/.test(rest)) {
    const path = l.marker >= 0 ? itemPath(lines, at, l) : containerPath(lines, at, l.content);
    if (path === null) return { path: [], kind: 'scalar', from, prefix, siblings: [] };
    const siblings = l.marker >= 0 ? [] : blockSiblings(lines, at, l.content);
    return { path, kind: 'key', from, prefix, siblings };
  }
  return { path: containerPath(lines, at, l.content) ?? [], kind: 'scalar', from, prefix, siblings: [] };
}

function countLines(text: string, upTo: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < upTo; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** `{{inputs.na` just before the cursor: the input name typed so far, or null. */
export function inputRefAt(before: string): string | null {
  const m = /\{\{\s*inputs\.([a-z0-9_]*)$/.exec(before);
  return m ? m[1]! : null;
}
