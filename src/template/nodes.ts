/**
 * The node rules (docs/format.md, The patch): each node read on its own, against
 * the schema for its type, into a NodeModel with defaults applied.
 */
import { isMap, isScalar, isSeq, type Node, type Pair } from 'yaml';
import { BUILTINS, isBuiltin } from './catalog/builtins.js';
import { PROFILES, isProfile } from './catalog/profiles.js';
import type { CatalogueLookups } from './lookups.js';
import type { NodeModel } from './model.js';
import { LIMITS } from './read.js';
import { BUILTIN_NODE_SCHEMAS, ModelNodeSchema, PATTERNS, ToolNodeSchema } from './schema.js';
import { type Path, type Walk, type YNode, checkMap, patternRegExp, str, typeOf } from './walk.js';

export interface NodeRead {
  model: NodeModel;
  /** the node's key, where node-level problems point */
  keyNode: Node;
  path: Path;
  /** false when the type or builtin is unknown: its ports are then not checked by cords */
  portsKnown: boolean;
}

export interface NodesRead {
  nodes: NodeRead[];
  byId: Map<string, NodeRead>;
  /** over LIMITS.nodes: graph rules are skipped */
  overCap: boolean;
}

/**
 * `{{inputs.X}}`, spaces allowed inside the braces; group 1 is X. The one
 * parser of placeholders: the validator checks names with it and the launch
 * fold (fold.ts) replaces with it. Global: use with matchAll or replace.
 */
export const PLACEHOLDER = /\{\{\s*inputs\.([^{}]*?)\s*\}\}/g;

export function readNodes(w: Walk, node: YNode, inputs: ReadonlySet<string>, lookups: CatalogueLookups): NodesRead {
  const out: NodesRead = { nodes: [], byId: new Map(), overCap: false };
  if (!isMap(node)) return out;
  if (node.items.length > LIMITS.nodes) {
    out.overCap = true;
    w.report('limit.nodes', `\`nodes\` has ${node.items.length} nodes, over the cap of ${LIMITS.nodes}; split the template`, ['nodes'], node);
  }
  const idPattern = patternRegExp(PATTERNS.identifier);
  for (const pair of node.items as Pair<unknown, unknown>[]) {
    const keyNode = w.resolve(pair.key);
    if (!isScalar(keyNode)) {
      w.report('node.id_pattern', 'a node id is not a plain name; use lowercase letters, digits and underscores', ['nodes', ''], keyNode ?? node);
      continue;
    }
    const id = String(keyNode.value);
    if (out.byId.has(id)) continue; // a duplicate key: the reader reports it, the first one counts
    const path = ['nodes', id];
    if (!idPattern.test(id)) {
      w.report('node.id_pattern', `node id '${id}' is not allowed; use lowercase letters, digits and underscores, starting with a letter, at most 64 characters`, path, keyNode);
    }
    const read: NodeRead = { model: { id, type: '', touches: [], inlets: [], outlets: [] }, keyNode, path, portsKnown: false };
    const line = w.line(keyNode);
    if (line !== undefined) read.model.line = line;
    out.byId.set(id, read);
    out.nodes.push(read);
    readNode(w, w.resolve(pair.value), read, inputs, lookups);
  }
  return out;
}

function readNode(w: Walk, value: YNode, read: NodeRead, inputs: ReadonlySet<string>, lookups: CatalogueLookups): void {
  const { id } = read.model;
  const what = `node '${id}'`;
  if (!isMap(value)) {
    w.report('doc.not_mapping', `${what} must be a mapping with a \`type\`; write e.g. \`${id}: { type: builtin, builtin: checks }\``, read.path, value ?? read.keyNode);
    return;
  }
  const typeNode = w.resolve(value.get('type', true));
  const type = str(typeNode);
  if (type === undefined) {
    if (typeOf(typeNode) === 'null') {
      w.report('key.missing', `${what} has no \`type\`; add \`type:\` (model, builtin or tool)`, [...read.path, 'type'], value);
    } else {
      w.report('type.mismatch', `${what}: \`type\` must be a string (model, builtin or tool); change its value`, [...read.path, 'type'], typeNode);
    }
    return;
  }
  read.model.type = type;
  if (type === 'model') readModel(w, value, read, inputs, lookups);
  else if (type === 'builtin') readBuiltin(w, value, read, inputs);
  else if (type === 'tool') readTool(w, value, read);
  else if (type === 'subpatch') {
    w.report('node.subpatch', `${what} is a subpatch, which the format refuses (a template is one file); inline its nodes instead`, [...read.path, 'type'], typeNode);
  } else {
    w.report('node.type_unknown', `${what} has type '${type}'; use model, builtin or tool`, [...read.path, 'type'], typeNode);
  }
}

function readModel(w: Walk, map: YNode, read: NodeRead, inputs: ReadonlySet<string>, lookups: CatalogueLookups): void {
  const { id } = read.model;
  const what = `node '${id}'`;
  const e = checkMap(w, map, ModelNodeSchema, read.path, { what, valueCodes: { type: null, role: null, profile: 'model.profile_unknown' } });
  if (!e) return;
  const m = read.model;
  for (const key of e.missing) {
    if (key === 'role') w.report('model.role_missing', `${what} is a model node with no role; add \`role:\` (a role the library knows)`, [...read.path, 'role'], e.map);
    else if (key === 'profile') w.report('model.profile_missing', `${what} is a model node with no profile; add \`profile:\` (one of ${Object.keys(PROFILES).join(', ')})`, [...read.path, 'profile'], e.map);
  }
  const roleNode = e.values.get('role');
  const role = str(roleNode);
  if (role !== undefined) {
    m.role = role;
    if (!lookups.hasRole(role)) w.report('model.role_unknown', `${what} has role '${role}', which the library does not know; use a known role or add it to the library`, [...read.path, 'role'], roleNode);
  }
  const profile = str(e.values.get('profile'));
  if (profile !== undefined) {
    m.profile = profile;
    if (isProfile(profile)) m.touches = [...PROFILES[profile]];
  }
  // What the role's kit grants the node can touch too: a read_only node whose
  // role's kit lists tickets.update can still change tickets.
  const kit = role !== undefined ? lookups.kit(role) : undefined;
  if (kit?.length) {
    m.kit = [...kit];
    for (const tool of kit) if (!m.touches.includes(tool)) m.touches.push(tool);
  }
  const model = str(e.values.get('model'));
  if (model !== undefined) m.model = model;
  const promptNode = e.values.get('prompt');
  const prompt = str(promptNode);
  if (prompt !== undefined) {
    m.prompt = prompt;
    checkPlaceholders(w, prompt, promptNode, [...read.path, 'prompt'], what, inputs);
  }
  m.inlets = readPorts(w, e.values.get('inlets'), [...read.path, 'inlets'], what, 'inlet') ?? ['start'];
  m.outlets = readPorts(w, e.values.get('outlets'), [...read.path, 'outlets'], what, 'outlet') ?? ['done'];
  read.portsKnown = true;
  readMaxVisits(w, e.values.get('max_visits'), read);
  const whenNode = e.values.get('when');
  if (whenNode !== undefined) {
    const whenSchema = ModelNodeSchema.properties.when;
    const we = checkMap(w, whenNode, whenSchema, [...read.path, 'when'], { what: `${what}: \`when\`` });
    if (we) {
      for (const key of we.missing) w.report('key.missing', `${what}: \`when\` has no \`${key}\`; add \`${key}: <command>\``, [...read.path, 'when', key], we.map);
      const cmd = str(we.values.get('on_path'));
      if (cmd !== undefined) m.when = { on_path: cmd };
    }
  }
}

/** `max_visits`: checkMap has checked it is an integer; the schema's minimum is checked here. */
function readMaxVisits(w: Walk, node: YNode, read: NodeRead): void {
  if (node === undefined || typeOf(node) !== 'integer') return;
  const n = (node as { value: number }).value;
  if (n >= 1) read.model.max_visits = n;
  else w.report('type.mismatch', `node '${read.model.id}': \`max_visits\` must be a positive integer, not ${n}; give how many times a run may enter the node`, [...read.path, 'max_visits'], node);
}

/** Reads an inlets/outlets list; undefined when absent (the default applies). */
function readPorts(w: Walk, node: YNode, path: Path, what: string, kind: string): string[] | undefined {
  if (!isSeq(node)) return undefined;
  const ports: string[] = [];
  const re = patternRegExp(PATTERNS.identifier);
  node.items.forEach((item, i) => {
    const value = w.resolve(item);
    const name = str(value);
    if (name === undefined || !re.test(name)) {
      w.report('type.mismatch', `${what}: ${kind} ${i + 1} must be a port name (lowercase letters, digits, underscores); change it`, [...path, i], value ?? node);
    } else if (ports.includes(name)) {
      w.report('model.port_duplicate', `${what} names ${kind} '${name}' twice; remove one`, [...path, i], value);
    } else {
      ports.push(name);
    }
  });
  return ports;
}

function checkPlaceholders(w: Walk, text: string, at: YNode, path: Path, what: string, inputs: ReadonlySet<string>): void {
  if (!text.includes('{{')) return;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? '';
    if (!inputs.has(name)) {
      const known = inputs.size ? `one of ${[...inputs].join(', ')}` : 'declare it under `inputs:`';
      w.report('model.prompt_input_unknown', `${what}: the prompt uses {{inputs.${name}}} but no input '${name}' is declared; use ${known}`, path, at);
    }
  }
}

function readBuiltin(w: Walk, map: YNode, read: NodeRead, inputs: ReadonlySet<string>): void {
  const { id } = read.model;
  const what = `node '${id}'`;
  if (!isMap(map)) return;
  const builtinNode = w.resolve(map.get('builtin', true));
  const builtin = str(builtinNode);
  if (builtin === undefined) {
    if (typeOf(builtinNode) === 'null') w.report('key.missing', `${what} is a builtin node with no \`builtin\`; add \`builtin:\` (one of ${Object.keys(BUILTINS).join(', ')})`, [...read.path, 'builtin'], map);
    else w.report('type.mismatch', `${what}: \`builtin\` must be a string naming a builtin; change its value`, [...read.path, 'builtin'], builtinNode);
    return;
  }
  read.model.builtin = builtin;
  if (!isBuiltin(builtin)) {
    w.report('builtin.unknown', `${what} names builtin '${builtin}', which does not exist; use one of ${Object.keys(BUILTINS).join(', ')}`, [...read.path, 'builtin'], builtinNode);
    return;
  }
  const spec = BUILTINS[builtin];
  read.model.inlets = [...spec.inlets];
  read.model.outlets = [...spec.outlets];
  read.portsKnown = true;
  const e = checkMap(w, map, BUILTIN_NODE_SCHEMAS[builtin], read.path, {
    what: `${what} (builtin ${builtin})`,
    unknownCode: 'builtin.argument_unknown',
    valueCodes: { type: null, builtin: null, over: 'builtin.capability_unknown' },
  });
  if (!e) return;
  for (const key of e.missing) {
    w.report('builtin.argument_missing', `${what} (builtin ${builtin}) needs \`${key}\`; add \`${key}:\` (${(spec.args as Record<string, { description: string }>)[key]?.description ?? 'see docs/format.md'})`, [...read.path, key], e.map);
  }
  const args: Record<string, string> = {};
  for (const key of Object.keys(spec.args)) {
    const s = str(e.values.get(key));
    if (s !== undefined) args[key] = s;
  }
  if (Object.keys(args).length) read.model.args = args;
  readMaxVisits(w, e.values.get('max_visits'), read);
  if (args.prompt !== undefined) checkPlaceholders(w, args.prompt, e.values.get('prompt'), [...read.path, 'prompt'], what, inputs);
}

function readTool(w: Walk, map: YNode, read: NodeRead): void {
  const what = `node '${read.model.id}'`;
  read.model.inlets = ['in'];
  read.model.outlets = ['out'];
  read.portsKnown = true;
  const e = checkMap(w, map, ToolNodeSchema, read.path, { what: `${what} (a tool node)`, unknownCode: 'tool.extra_key', valueCodes: { type: null, tool: 'tool.unknown' } });
  if (!e) return;
  for (const key of e.missing) w.report('key.missing', `${what} is a tool node with no \`tool\`; add \`tool:\` with a tool id such as web.fetch`, [...read.path, key], e.map);
  const tool = str(e.values.get('tool'));
  if (tool !== undefined) {
    read.model.tool = tool;
    read.model.touches = [tool];
  }
}
