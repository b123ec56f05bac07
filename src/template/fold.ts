/**
 * Folding a run's inputs into a prompt, as data (docs/format.md, Inputs at
 * launch). One pass over the template's text with the validator's own
 * placeholder parser (PLACEHOLDER in nodes.ts): each `{{inputs.X}}` is
 * replaced by X's value and the result is never scanned again, so a value
 * that itself reads `{{inputs.other}}` stays that literal text. Pure; never
 * throws.
 */
import { PLACEHOLDER } from './nodes.js';

/** Where an inserted value sits in the folded text, and whose it is. */
export interface FoldSpan {
  start: number;
  end: number;
  input: string;
}

export interface Folded {
  text: string;
  spans: FoldSpan[];
  /**
   * Inputs whose value, once folded, forms a `{{inputs.…}}` together with
   * the template's text around it (`{{` + `inputs.b` + `}}`). The text stays
   * literal; the launch warns `input.looks_like_reference` on them.
   */
  straddles: string[];
}

/**
 * A value as prompt text: a list is one item per line; a string as it is;
 * numbers and booleans as JSON writes them; an absent optional input is
 * empty text.
 */
export function renderValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(renderValue).join('\n');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

/** Any `{{…}}` at all, the kind a reader could take for a placeholder of some templating. */
const ANY_BRACES = /\{\{[\s\S]*?\}\}/;

/** The value text reads like a reference (`{{inputs.x}}`, `{{ anything }}`): folded literally, but worth a warning. */
export function looksLikeReference(text: string): boolean {
  return text.includes('{{') && ANY_BRACES.test(text);
}

/**
 * Folds `values` (input name → text, already rendered) into `text`. A
 * placeholder naming no key of `values` is left as written: a valid
 * template names only declared inputs, and the launch gives every declared
 * input a text (empty when absent), so this is only a guard. Placeholders
 * of other kinds (`{{run.id}}`) are not the parser's and stay as they are.
 */
export function foldText(text: string, values: ReadonlyMap<string, string>): Folded {
  if (!text.includes('{{')) return { text, spans: [], straddles: [] };
  let out = '';
  let last = 0;
  const spans: FoldSpan[] = [];
  for (const m of text.matchAll(PLACEHOLDER)) {
    const name = m[1] ?? '';
    const value = values.get(name);
    if (value === undefined) continue;
    out += text.slice(last, m.index);
    spans.push({ start: out.length, end: out.length + value.length, input: name });
    out += value;
    last = m.index + m[0].length;
  }
  out += text.slice(last);
  return { text: out, spans, straddles: spans.length === 0 ? [] : straddling(out, spans) };
}

/**
 * The inputs in a placeholder of the folded text that does not lie inside
 * one value. Only read to warn: nothing is replaced again.
 */
function straddling(out: string, spans: readonly FoldSpan[]): string[] {
  if (!out.includes('{{')) return [];
  const found = new Set<string>();
  for (const m of out.matchAll(PLACEHOLDER)) {
    const start = m.index;
    const end = start + m[0].length;
    const inside = spans.some((s) => s.start <= start && end <= s.end);
    if (inside) continue;
    for (const s of spans) if (s.start < end && start < s.end) found.add(s.input);
  }
  return [...found];
}
