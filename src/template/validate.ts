/**
 * The one validator (docs/problems.md). Reading (read.ts) comes first;
 * then one walk over the document: the top level against TemplateSchema, the
 * header (header.ts), the nodes (nodes.ts), the cords (cords.ts), and the
 * rules across them (graph.ts). Every problem is collected, then sorted into
 * source order.
 */
import type { Catalogue, TemplateModel } from './model.js';
import { readCords } from './cords.js';
import { checkGraph } from './graph.js';
import { checkLoops } from './loops.js';
import { readHeader } from './header.js';
import { CatalogueLookups, type CatalogueRefs, emptyRefs } from './lookups.js';
import { readNodes } from './nodes.js';
import { MAX_PROBLEMS_PER_CODE } from './problem-collector.js';
import { hasErrors, type Problem, type ProblemCode, problem } from './problems.js';
import { readSource } from './read.js';
import { SUPPORTED_VERSION, TemplateSchema } from './schema.js';
import { Walk, checkMap, typeOf } from './walk.js';

export interface ValidateOptions {
  /** the name the template must carry (file name, URL name or proposal name); unchecked when absent */
  name?: string;
  /** the roles, templates and kits the library holds; asked only through CatalogueLookups */
  catalogue: Catalogue;
}

export interface Validation {
  /** best-effort typed view; null when the document could not be read at all */
  template: TemplateModel | null;
  /** every problem, in source order */
  problems: Problem[];
  /** no problem of severity error */
  valid: boolean;
  /**
   * What the validation asked the catalogue and what it was told
   * (lookups.ts). Besides the source and the name, these answers are all it
   * depends on: under a catalogue that answers them the same, validating
   * again gives the same result.
   */
  refs: CatalogueRefs;
}

/**
 * What buildCard and diffTemplates need of a validator: a stand-in (a memo,
 * a validation kept by the caller) answers these without the refs.
 */
export type Validator = (source: string, options: ValidateOptions) => Pick<Validation, 'template' | 'problems' | 'valid'>;

/** The one validator: pure, no I/O, never throws. */
export function validateTemplate(source: string, options: ValidateOptions): Validation {
  let read: ReturnType<typeof readSource>;
  try {
    read = readSource(source);
  } catch (e) {
    return failed([], e, emptyRefs());
  }
  if (!read.doc) return { template: null, problems: read.problems, valid: !hasErrors(read.problems), refs: emptyRefs() };
  const lookups = new CatalogueLookups(options.catalogue);
  try {
    const walk = new Walk(read.doc, read.lineCounter, read.aliasTargets);
    const template = walkDocument(walk, options, lookups);
    const problems = capPerCode(sortBySource([...read.problems, ...walk.pending.map((p) => p.problem)]));
    return { template, problems, valid: !hasErrors(problems), refs: lookups.refs };
  } catch (e) {
    // the walk is pure, so the same answers lead it to the same throw: the refs so far still hold
    return failed(read.problems, e, lookups.refs);
  }
}

/**
 * A throw inside the walk is a bug, never the template's fault; it still must
 * not reach the caller (docs/format.md, Reading), and it must not pass a template, so it becomes an
 * error. The property tests in test/validate-property.test.ts fail on it.
 */
function failed(problems: Problem[], e: unknown, refs: CatalogueRefs): Validation {
  const detail = e instanceof Error ? e.message : String(e);
  const all = [...problems, problem('yaml.syntax', `the validator failed on this source (${detail}); please report it with the file`, '')];
  return { template: null, problems: all, valid: false, refs };
}

/**
 * The walk itself, exported for tests that must see a thrown bug rather than
 * its problem. It sees the catalogue only through `lookups`.
 */
export function walkDocument(w: Walk, options: ValidateOptions, lookups = new CatalogueLookups(options.catalogue)): TemplateModel {
  const root = w.resolve(w.doc.contents);
  // An empty document has no node to point at; its start is offset 0.
  const e = checkMap(w, root ?? 0, TemplateSchema, [], { what: 'the document', valueCodes: { version: null } });
  const v = e?.values;
  for (const key of e?.missing ?? []) {
    if (key === 'nodes') w.report('patch.no_nodes', 'the template has no `nodes`; add at least one node under `nodes:`', ['nodes'], e?.map);
    else if (key === 'template') w.report('key.missing', 'the document has no `template:` header; add one with name, purpose, entry and inlet', ['template'], e?.map);
    else w.report('key.missing', `the document has no \`${key}\`; add \`${key}: ${SUPPORTED_VERSION}\``, [key], e?.map);
  }

  const header = readHeader(w, v?.get('template'), options.name, lookups);
  const template: TemplateModel = { header: header.model, nodes: [], cords: [], ticket: false, loops: [] };

  const versionNode = v?.get('version');
  if (versionNode && typeOf(versionNode) === 'integer') {
    const version = (versionNode as { value: number }).value;
    template.version = version;
    if (version !== SUPPORTED_VERSION) w.report('patch.version', `\`version\` is ${version}, which is not supported; use \`version: ${SUPPORTED_VERSION}\``, ['version'], versionNode);
  }

  const nodesNode = v?.get('nodes');
  const inputs = new Set(header.model.inputs.map((i) => i.name).filter((n) => n !== ''));
  const nodes = readNodes(w, nodesNode, inputs, lookups);
  if (nodesNode && nodes.nodes.length === 0 && typeOf(nodesNode) === 'object') {
    w.report('patch.no_nodes', '`nodes` is empty; add at least one node', ['nodes'], nodesNode);
  }
  template.nodes = nodes.nodes.map((n) => n.model);

  const cords = readCords(w, v?.get('cords'), nodes);
  template.cords = cords.cords;
  const overCap = nodes.overCap || cords.overCap;
  checkGraph(w, { header, nodes, edges: cords.edges, overCap });
  // past a node or cord cap, no loop search (as no reachability): caps come first so no input is slow
  if (!overCap) template.loops = checkLoops(w, nodes, cords.edges);

  const tickets = header.tickets?.decl;
  template.ticket = header.model.closes_ticket && tickets?.required === true;
  return template;
}

/** Source order: by line, then column; a problem with no position first; stable otherwise. */
function sortBySource(problems: Problem[]): Problem[] {
  const key = (p: Problem) => (p.line === undefined ? -1 : p.line * 1e6 + (p.column ?? 0));
  return problems.map((p, i) => ({ p, i, k: key(p) })).sort((a, b) => a.k - b.k || a.i - b.i).map((x) => x.p);
}

/**
 * At most MAX_PROBLEMS_PER_CODE problems of one code, as the reader does: a
 * 128 KiB file of 7,000 unknown keys would otherwise answer 6,000 problems
 * (1.3 MB of JSON) that say nothing the first hundred did not. The last one
 * kept says the list was cut. Validity is decided before the cut.
 */
function capPerCode(problems: Problem[]): Problem[] {
  const counts = new Map<ProblemCode, number>();
  const kept: Problem[] = [];
  for (const p of problems) {
    const n = (counts.get(p.code) ?? 0) + 1;
    counts.set(p.code, n);
    if (n < MAX_PROBLEMS_PER_CODE) kept.push(p);
    else if (n === MAX_PROBLEMS_PER_CODE) kept.push({ ...p, message: `${p.message} (and possibly more of this kind: the list stops at ${n})` });
  }
  return kept;
}
