/**
 * A launch preview (docs/api.md, Launch preview; docs/format.md, Inputs at
 * launch): a valid template's model and the inputs a launch would carry in;
 * out, every problem with those inputs and the runs the launch would start,
 * each with its inputs, its nodes, what each can touch and their prompts
 * with the inputs folded in as data. Format layer: pure, no I/O, never
 * throws; the caller has checked that the template is valid.
 */
import { foldText, looksLikeReference, renderValue } from './fold.js';
import { type InputDecl, inputRuns, type TemplateModel } from './model.js';
import { PLACEHOLDER } from './nodes.js';
import { type Problem, type ProblemCode, pointer, problem } from './problems.js';

/** At most this many runs from one launch: past it the preview refuses (`input.too_many_runs`). */
export const MAX_RUNS = 100;

/**
 * At most this many characters of folded prompt text in one preview, all
 * runs together. A 1 MiB value folded into a prompt that names it thousands
 * of times, over 100 runs, would otherwise build gigabytes and end the
 * process; the quick-fix preview of 100 tickets is about 70 thousand.
 */
const MAX_FOLDED_CHARS = 8 * 2 ** 20;

/** The problem codes a launch reports; the validator never does. */
export const LAUNCH_CODES = [
  'input.unknown',
  'input.missing',
  'input.type',
  'input.one_of',
  'input.looks_like_reference',
  'input.too_many_runs',
  'input.runs_conflict',
  'input.too_large',
] as const satisfies readonly ProblemCode[];

export interface LaunchNode {
  id: string;
  type: string;
  role: string | null;
  profile: string | null;
  builtin: string | null;
  tool: string | null;
  /** what the node can touch: the card's list (its profile's, then its role kit's; or its tool) */
  touches: string[];
  /** a model node's or a human gate's prompt with the run's inputs folded in; null for other nodes and for no prompt */
  prompt: string | null;
}

export interface LaunchRun {
  /** 0-based, in the order of the list that fans out */
  index: number;
  inputs: Record<string, unknown>;
  nodes: LaunchNode[];
}

export interface LaunchPreview {
  /** no problem of severity error: the launch would start `runs` */
  ok: boolean;
  problems: Problem[];
  /** empty when not ok */
  runs: LaunchRun[];
}

export function previewLaunch(model: TemplateModel, given: Readonly<Record<string, unknown>>): LaunchPreview {
  const problems: Problem[] = [];
  const resolved = resolveInputs(model.header.inputs, given, problems);
  const fan = fanOut(model, resolved, problems);
  if (!problems.some((p) => p.severity === 'error')) checkSize(model, resolved, fan, problems);
  if (problems.some((p) => p.severity === 'error')) return { ok: false, problems, runs: [] };
  const straddles = new Set<string>();
  const runInputs = fan === null ? [resolved] : fan.items.map((item) => new Map(resolved).set(fan.name, [item]));
  const runs = runInputs.map((inputs, index) => buildRun(model, inputs, index, straddles));
  for (const name of straddles) {
    // a value already warned for reads like a reference on its own
    if (problems.some((p) => p.code === 'input.looks_like_reference' && inputOf(p.path) === name)) continue;
    problems.push(problem('input.looks_like_reference', `input '${name}': its value and the prompt's braces around it read as a {{inputs.…}} reference; it is folded as literal text, check the value`, pointer(['inputs', name])));
  }
  return { ok: true, problems, runs };
}

function inputOf(path: string): string {
  return path.split('/')[2] ?? '';
}

/**
 * Checks `given` against the declarations and fills defaults. An unknown
 * name, a missing required input, a value of the wrong type or outside
 * `one_of` is an error; a value that reads like a reference is a warning.
 */
function resolveInputs(decls: readonly InputDecl[], given: Readonly<Record<string, unknown>>, problems: Problem[]): Map<string, unknown> {
  const byName = new Map(decls.map((d) => [d.name, d]));
  for (const key of Object.keys(given)) {
    if (!byName.has(key)) {
      const known = decls.length ? `one of ${decls.map((d) => d.name).join(', ')}` : 'none: the template declares no inputs';
      problems.push(problem('input.unknown', `input '${key}' is not declared by the template; remove it (inputs are ${known})`, pointer(['inputs', key])));
    }
  }
  const resolved = new Map<string, unknown>();
  for (const d of decls) {
    const path = ['inputs', d.name];
    const value = Object.hasOwn(given, d.name) ? given[d.name] : d.default;
    if (value === undefined || (d.type === 'list' && Array.isArray(value) && value.length === 0 && d.required)) {
      if (d.required) problems.push(problem('input.missing', `input '${d.name}' is required and has no default; give ${expected(d)}`, pointer(path)));
      continue;
    }
    if (!checkType(d, value, path, problems)) continue;
    if (d.one_of && !d.one_of.some((v) => sameValue(v, value))) {
      problems.push(problem('input.one_of', `input '${d.name}' must be one of ${d.one_of.map((v) => JSON.stringify(v)).join(', ')}; pick one`, pointer(path)));
      continue;
    }
    const texts = Array.isArray(value) ? value.map((v, i) => [renderValue(v), [...path, i]] as const) : [[renderValue(value), path] as const];
    for (const [text, at] of texts) {
      if (looksLikeReference(text)) {
        problems.push(problem('input.looks_like_reference', `input '${d.name}': the value contains {{…}}, which is folded as literal text and never replaced; check that it is meant`, pointer(at)));
      }
    }
    resolved.set(d.name, value);
  }
  return resolved;
}

function checkType(d: InputDecl, value: unknown, path: (string | number)[], problems: Problem[]): boolean {
  if (d.type === 'list') {
    if (!Array.isArray(value)) {
      problems.push(problem('input.type', `input '${d.name}' must be a list; give ${expected(d)}`, pointer(path)));
      return false;
    }
    let ok = true;
    value.forEach((item, i) => {
      if (!isScalar(item)) {
        ok = false;
        problems.push(problem('input.type', `input '${d.name}' item ${i + 1} must be a string, number or boolean (a list folds one item per line); change it`, pointer([...path, i])));
      }
    });
    return ok;
  }
  if (fits(d.type, value)) return true;
  const beyond = d.type === 'integer' && Number.isInteger(value) ? ' (within ±2^53, where every integer is exact)' : '';
  problems.push(problem('input.type', `input '${d.name}' must be ${expected(d)}${beyond}; change its value`, pointer(path)));
  return false;
}

function fits(type: InputDecl['type'], v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      // JSON's 1e400 arrives as Infinity: no number a run can use
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return Number.isSafeInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'list':
      return Array.isArray(v);
  }
}

function isScalar(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

function expected(d: InputDecl): string {
  return d.type === 'list' ? 'a list with at least one item' : d.type === 'boolean' ? 'true or false' : `a ${d.type}`;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (Array.isArray(a) && Array.isArray(b) && JSON.stringify(a) === JSON.stringify(b));
}

/**
 * The list the launch fans out over, or null for one run. Only one list may
 * say `each`: two would mean a run per pair, which no template has asked for,
 * so the preview refuses rather than guess (`input.runs_conflict`).
 */
function fanOut(model: TemplateModel, resolved: ReadonlyMap<string, unknown>, problems: Problem[]): { name: string; items: unknown[] } | null {
  const each = model.header.inputs.filter((d) => inputRuns(d, model.ticket) === 'each');
  for (const d of each.slice(1)) {
    problems.push(problem('input.runs_conflict', `inputs '${each[0]?.name}' and '${d.name}' both launch one run per item; declare \`runs: together\` on one of them`, pointer(['inputs', d.name])));
  }
  const d = each[0];
  if (!d || each.length > 1) return null;
  const value = resolved.get(d.name);
  if (!Array.isArray(value)) return null;
  if (value.length > MAX_RUNS) {
    problems.push(problem('input.too_many_runs', `input '${d.name}' has ${value.length} items and launches one run each; at most ${MAX_RUNS} runs start from one launch, so split the list`, pointer(['inputs', d.name])));
  }
  return { name: d.name, items: value };
}

/** The prompts a run folds: a model node's, a human gate's. */
function rawPrompt(n: TemplateModel['nodes'][number]): string | undefined {
  return n.type === 'model' ? n.prompt : n.type === 'builtin' && n.builtin === 'human_gate' ? n.args?.prompt : undefined;
}

/**
 * Counts, before any folding, the characters the runs' prompts would hold
 * (each placeholder's count times its value's length), and refuses past
 * MAX_FOLDED_CHARS, naming the input that adds the most.
 */
function checkSize(model: TemplateModel, resolved: ReadonlyMap<string, unknown>, fan: { name: string; items: unknown[] } | null, problems: Problem[]): void {
  const uses = new Map<string, number>();
  let literal = 0;
  for (const n of model.nodes) {
    const raw = rawPrompt(n);
    if (raw === undefined) continue;
    literal += raw.length;
    for (const m of raw.matchAll(PLACEHOLDER)) {
      const name = m[1] ?? '';
      uses.set(name, (uses.get(name) ?? 0) + 1);
      literal -= m[0].length;
    }
  }
  const runs = fan === null ? 1 : fan.items.length;
  const added = new Map<string, number>();
  for (const [name, count] of uses) {
    if (!resolved.has(name)) continue;
    // a fanned-out list gives each run one item: all its items once over the runs
    const chars = fan?.name === name ? fan.items.reduce<number>((sum, item) => sum + renderValue(item).length, 0) : runs * renderValue(resolved.get(name)).length;
    added.set(name, count * chars);
  }
  const total = runs * literal + [...added.values()].reduce((a, b) => a + b, 0);
  if (total <= MAX_FOLDED_CHARS) return;
  const [worst] = [...added].sort((a, b) => b[1] - a[1])[0] ?? [''];
  problems.push(problem('input.too_large', `the folded prompts would hold ${total} characters, over the ${MAX_FOLDED_CHARS} a preview folds; shorten input '${worst}' or launch fewer runs at once`, pointer(['inputs', worst])));
}

function buildRun(model: TemplateModel, inputs: ReadonlyMap<string, unknown>, index: number, straddles: Set<string>): LaunchRun {
  // every declared input has a text, an absent optional one empty
  const texts = new Map(model.header.inputs.map((d) => [d.name, renderValue(inputs.get(d.name))]));
  const nodes = model.nodes.map((n): LaunchNode => {
    const raw = rawPrompt(n);
    let prompt: string | null = null;
    if (raw !== undefined) {
      const f = foldText(raw, texts);
      prompt = f.text;
      for (const s of f.straddles) straddles.add(s);
    }
    return {
      id: n.id,
      type: n.type,
      role: n.role ?? null,
      profile: n.profile ?? null,
      builtin: n.builtin ?? null,
      tool: n.tool ?? null,
      touches: [...n.touches],
      prompt,
    };
  });
  return { index, inputs: Object.fromEntries(inputs), nodes };
}
