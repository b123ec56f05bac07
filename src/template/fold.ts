/**
 * Folding a run's inputs into a prompt, as data (docs/format.md, Inputs at
 * launch). One pass over the template's text with the validator's own
 * placeholder parser (PLACEHOLDER in nodes.ts): each `{{inputs.X}}` with a
 * value is replaced by it and the result is never scanned again, so a value
 * that itself reads `{{inputs.other}}` stays that literal text. An input
 * with no value keeps its placeholder: the hole stays visible.
 *
 * The spawn-time guard (`addedMachinery`) finds the machinery a value
 * brought into a prompt — a placeholder `{{…}}` or a directive fence `:::`
 * it is part of — which the launch refuses (`input.introduces_machinery`).
 * Pure; never throws.
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
  /** the inputs whose placeholder was left as written, having no value (each once, in order) */
  holes: string[];
}

/**
 * A value as prompt text: a list is one item per line; a string as it is;
 * numbers and booleans as JSON writes them.
 */
export function renderValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(renderValue).join('\n');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

/**
 * Folds `values` (input name → text, already rendered) into `text`. A
 * placeholder naming no key of `values` is left as written: an optional
 * input with no value and no default keeps its hole (listed in `holes` when
 * it is one of `declared`). Placeholders of other kinds (`{{run.id}}`) are
 * not the parser's and stay as they are.
 */
export function foldText(text: string, values: ReadonlyMap<string, string>, declared?: ReadonlySet<string>): Folded {
  if (!text.includes('{{')) return { text, spans: [], holes: [] };
  let out = '';
  let last = 0;
  const spans: FoldSpan[] = [];
  const holes = new Set<string>();
  for (const m of text.matchAll(PLACEHOLDER)) {
    const name = m[1] ?? '';
    const value = values.get(name);
    if (value === undefined) {
      if (declared?.has(name)) holes.add(name);
      continue;
    }
    out += text.slice(last, m.index);
    spans.push({ start: out.length, end: out.length + value.length, input: name });
    out += value;
    last = m.index + m[0].length;
  }
  out += text.slice(last);
  return { text: out, spans, holes: [...holes] };
}

/**
 * A placeholder as a renderer would find it: `{{`, no other `{{` or `}}`,
 * then `}}` — the innermost, so a value cannot hide one inside a wider pair
 * (`{{ {{run.secret}}`). Linear: a scan stops at the next `{{`.
 */
const ANY_PLACEHOLDER = /\{\{(?:(?!\{\{|\}\})[\s\S])*\}\}/g;
/** A directive fence: three colons or more, counted once per run of them. */
const FENCE = /:{3,}/g;

/**
 * The inputs whose value is part of a placeholder or a fence of the folded
 * text, or null when none is. The template's own machinery lies wholly in
 * its literal text, between the values, and is found there unchanged; any
 * other a value made, alone or with the text around it — `{{run.secret}}`,
 * a second `{{run.id}}` where the template has one, `{{` + `inputs.y` +
 * `}}`, `::` + `:` — is one the template did not have, so the prompt holds
 * more of it than the template's own text does.
 */
export function addedMachinery(folded: Folded): string[] | null {
  const { text, spans } = folded;
  if (spans.length === 0 || (!text.includes('{{') && !text.includes(':::'))) return null;
  const named = new Set<string>();
  for (const re of [ANY_PLACEHOLDER, FENCE]) {
    for (const m of text.matchAll(re)) {
      const end = m.index + m[0].length;
      // an empty value strictly inside one joins the text around it into it
      for (const s of spans) if (s.start < end && m.index < s.end) named.add(s.input);
    }
  }
  return named.size ? [...named] : null;
}
