/**
 * A launch preview (docs/api.md, Launch preview; docs/format.md, Inputs at
 * launch): a valid template's model and the inputs a launch would carry in;
 * out, every problem with those inputs (and the template's unbounded loops,
 * warned again where the launch is decided) and the runs the launch would start,
 * each with its inputs, its nodes, what each can touch and their prompts
 * with the inputs folded in as data. Format layer: pure, no I/O, never
 * throws; the caller has checked that the template is valid.
 */
import { addedMachinery, foldText, renderValue } from './fold.js';
import { unboundedMessage } from './loops.js';
import { type InputDecl, inputRuns, nodeIdentity, type TemplateModel } from './model.js';
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
  'input.introduces_machinery',
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
  /** the model it is pinned to, or null when presets fill it */
  model: string | null;
  /** the command that must be on PATH for it to run (`when: {on_path}`), so it may not run; null when it always runs */
  on_path: string | null;
  /** what the node can touch: the card's list (its profile's, then its role kit's; or its tool) */
  touches: string[];
  /** a model node's or a human gate's prompt with the run's inputs folded in; null for other nodes and for no prompt */
  prompt: string | null;
  /** the optional inputs with no value whose `{{inputs.X}}` the prompt keeps as written */
  holes: string[];
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
  // the template's own warning the operator must see when launching: a run of it may loop at its expense
  const problems: Problem[] = unboundedLoops(model);
  const resolved = resolveInputs(model.header.inputs, given, problems);
  const fan = fanOut(model, resolved, problems);
  if (!problems.some((p) => p.severity === 'error')) checkSize(model, resolved, fan, problems);
  if (problems.some((p) => p.severity === 'error')) return { ok: false, problems, runs: [] };
  const runInputs = fan === null ? [resolved] : fan.items.map((item) => new Map(resolved).set(fan.name, [item]));
  const guard = new Map<string, Problem>();
  const runs = runInputs.map((inputs, index) => buildRun(model, inputs, index, (input, node) => {
    // the fanned-out list's item of this run, else the input
    const path = fan?.name === input ? pointer(['inputs', input, index]) : pointer(['inputs', input]);
    const key = `${path} ${node}`;
    if (!guard.has(key)) {
      guard.set(key, problem('input.introduces_machinery', `input '${input}' brings a placeholder {{…}} or a directive fence ::: into the prompt of node '${node}' that the template's own text does not hold; a value is data, so take them out of it`, path));
    }
  }));
  if (guard.size) return { ok: false, problems: [...problems, ...guard.values()], runs: [] };
  return { ok: true, problems, runs };
}

/**
 * `loop.unbounded` again, one per loop a run could spin in for ever, at the
 * loop's first node (`/nodes/<id>`) as the validator reports it at save. A
 * warning: the launch may go ahead, but whoever approves it sees it.
 */
function unboundedLoops(model: TemplateModel): Problem[] {
  return model.loops.filter((l) => !l.bounded && l.cycle[0] !== undefined).map((l) => problem('loop.unbounded', unboundedMessage(l.cycle, l.cycle[0]!), pointer(['nodes', l.cycle[0]!])));
}

/** The inputs as a launch carries them: checked, defaults filled, the ones that do not check left out. */
export function checkedInputs(model: TemplateModel, given: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(resolveInputs(model.header.inputs, given, []));
}

/**
 * Checks `given` against the declarations and fills defaults. An unknown
 * name, a missing required input, a value of the wrong type or outside
 * `one_of` is an error. A value's text is judged once folded (the guard in
 * buildRun), where what surrounds it is known.
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
    // an optional input given "" or [] was not given: its default fills it, else it stays a hole
    const value = Object.hasOwn(given, d.name) && !(!d.required && isEmpty(given[d.name])) ? given[d.name] : d.default;
    if (value === undefined || (d.type === 'list' && Array.isArray(value) && value.length === 0 && d.required)) {
      if (d.required) problems.push(problem('input.missing', `input '${d.name}' is required and has no default; give ${expected(d)}`, pointer(path)));
      continue;
    }
    if (!checkType(d, value, path, problems)) continue;
    if (d.one_of && !d.one_of.some((v) => sameValue(v, value))) {
      problems.push(problem('input.one_of', `input '${d.name}' must be one of ${d.one_of.map((v) => JSON.stringify(v)).join(', ')}; pick one`, pointer(path)));
      continue;
    }
    resolved.set(d.name, value);
  }
  return resolved;
}

/** A value that says nothing: the empty string, the empty list. */
function isEmpty(v: unknown): boolean {
  return v === '' || (Array.isArray(v) && v.length === 0);
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
      // a placeholder with no value stays as written (a hole), so its text counts
      if (resolved.has(name)) literal -= m[0].length;
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

/**
 * One run's nodes with their prompts folded. Only inputs with a value fold:
 * an optional one with none keeps its `{{inputs.X}}` in the text, a hole the
 * run shows (`holes`), never an empty string that reads as if it were said.
 * Every folded prompt passes the guard: `refuse` hears each input that
 * brought machinery into a node's prompt.
 */
function buildRun(model: TemplateModel, inputs: ReadonlyMap<string, unknown>, index: number, refuse: (input: string, node: string) => void): LaunchRun {
  const texts = new Map([...inputs].map(([name, v]) => [name, renderValue(v)]));
  const declared = new Set(model.header.inputs.map((d) => d.name));
  const nodes = model.nodes.map((n): LaunchNode => {
    const raw = rawPrompt(n);
    let prompt: string | null = null;
    let holes: string[] = [];
    if (raw !== undefined) {
      const f = foldText(raw, texts, declared);
      prompt = f.text;
      holes = f.holes;
      for (const input of addedMachinery(f) ?? []) refuse(input, n.id);
    }
    return {
      ...nodeIdentity(n),
      on_path: n.when?.on_path ?? null,
      touches: [...n.touches],
      prompt,
      holes,
    };
  });
  return { index, inputs: Object.fromEntries(inputs), nodes };
}
