/**
 * The header rules (docs/format.md, The header) that need only the header itself.
 * Rules that look at nodes (roles, entry, terminal, the ticket contract) run
 * later in graph.ts from what this returns.
 */
import { isSeq } from 'yaml';
import type { CatalogueLookups } from './lookups.js';
import { type HeaderModel, type InputDecl, INPUT_RUNS, type InputRuns, type InputType } from './model.js';
import { isReservedTemplateName } from './names.js';
import { HeaderSchema, INPUT_TYPES, InputSchema, PATTERNS, RoleSlotSchema } from './schema.js';
import { type Entries, type Path, type Walk, type YNode, checkMap, patternRegExp, str, typeOf } from './walk.js';

export interface RoleRef {
  role: string;
  node: string;
  /** the `node:` value, where role problems point */
  at: YNode;
  path: Path;
}

export interface HeaderRead {
  model: HeaderModel;
  /** the header's entries; null when the header is absent or not a mapping */
  entries: Entries | null;
  roles: RoleRef[];
  /** the first input named `tickets`: its index in `inputs`, its declaration and its node */
  tickets?: { index: number; decl: InputDecl; at: YNode };
}

const P = ['template'] as const;

export function readHeader(w: Walk, node: YNode, name: string | undefined, lookups: CatalogueLookups): HeaderRead {
  const model: HeaderModel = { inputs: [], roles: [], writes: false, closes_ticket: false };
  const out: HeaderRead = { model, entries: null, roles: [] };
  // Absent or empty: the document's check has reported key.missing already.
  if (node === undefined || node === null) return out;
  const e = checkMap(w, node, HeaderSchema, P, {
    what: 'the header `template:`',
    valueCodes: { name: null, purpose: null, base: null, entry: null, inlet: null, terminal: null },
  });
  if (!e) return out;
  out.entries = e;
  for (const key of e.missing) {
    if (key === 'purpose') {
      w.report('purpose.empty', 'the header has no `purpose`; add one line saying what the template is for', [...P, key], e.map);
    } else {
      w.report('key.missing', `the header has no \`${key}\`; add \`${key}:\` under \`template:\``, [...P, key], e.map);
    }
  }
  const v = e.values;

  const nameNode = v.get('name');
  const n = str(nameNode);
  if (n !== undefined) {
    model.name = n;
    if (!patternRegExp(PATTERNS.templateName).test(n)) {
      w.report('name.pattern', `the header's \`name\` '${n}' is not a template name; use lowercase letters, digits and dashes, starting with a letter or digit, at most 64 characters`, [...P, 'name'], nameNode);
    } else if (isReservedTemplateName(n)) {
      w.report('name.reserved', `the header's \`name\` '${n}' is reserved (a diff names the shipped version and the base by these words); choose another name`, [...P, 'name'], nameNode);
    }
    if (name !== undefined && n !== name) {
      w.report('name.mismatch', `the header's \`name\` is '${n}' but the template is saved as '${name}'; make them the same`, [...P, 'name'], nameNode);
    }
  }

  const purposeNode = v.get('purpose');
  const purpose = str(purposeNode);
  if (purpose !== undefined) {
    const trimmed = purpose.trim();
    model.purpose = trimmed;
    if (trimmed === '') {
      w.report('purpose.empty', 'the header\'s `purpose` is blank; write one line saying what the template is for', [...P, 'purpose'], purposeNode);
    } else if (/[\n\r]/.test(trimmed)) {
      w.report('purpose.multiline', 'the header\'s `purpose` has a line break; make it one line', [...P, 'purpose'], purposeNode);
    }
  }

  const baseNode = v.get('base');
  const base = str(baseNode);
  if (base !== undefined) {
    model.base = base;
    if (!patternRegExp(PATTERNS.templateName).test(base)) {
      w.report('base.pattern', `the header's \`base\` '${base}' is not a template name; use lowercase letters, digits and dashes`, [...P, 'base'], baseNode);
    } else if (!lookups.hasTemplate(base)) {
      w.report('base.unknown', `the header's \`base\` names '${base}', which is not a template in the library; fix the name or remove \`base\``, [...P, 'base'], baseNode);
    }
  }

  for (const key of ['entry', 'inlet', 'terminal'] as const) {
    const s = str(v.get(key));
    if (s !== undefined) model[key] = s;
  }
  for (const key of ['writes', 'closes_ticket'] as const) {
    const b = v.get(key);
    if (b && typeOf(b) === 'boolean') model[key] = (b as { value: boolean }).value;
  }

  readInputs(w, v.get('inputs'), out);
  readRoles(w, v.get('roles'), out);
  return out;
}

function readInputs(w: Walk, node: YNode, out: HeaderRead): void {
  if (!isSeq(node)) return;
  const seen = new Set<string>();
  node.items.forEach((item, i) => {
    const path = [...P, 'inputs', i];
    const e = checkMap(w, w.resolve(item), InputSchema, path, { what: `input ${i + 1}`, valueCodes: { name: null } });
    if (!e) return;
    const nameNode = e.values.get('name');
    const name = str(nameNode);
    if (e.missing.includes('name')) {
      w.report('input.unnamed', `input ${i + 1} has no \`name\`; add \`name:\` (lowercase letters, digits, underscores)`, [...path, 'name'], e.map);
    }
    const typeNode = e.values.get('type');
    const typeValue = str(typeNode);
    const typeOk = typeValue === undefined || (INPUT_TYPES as readonly string[]).includes(typeValue);
    const decl: InputDecl = {
      name: name ?? '',
      required: e.values.get('required') ? (e.values.get('required') as { value: boolean }).value : false,
      type: (typeOk && typeValue ? typeValue : 'string') as InputType,
    };
    const description = str(e.values.get('description'));
    if (description !== undefined) decl.description = description;
    const runsNode = e.values.get('runs');
    const runs = str(runsNode);
    if (runs !== undefined && (INPUT_RUNS as readonly string[]).includes(runs)) {
      // how a list launches makes no sense for one value; an unknown type was reported already
      if (typeOk && decl.type !== 'list') {
        w.report('input.runs_not_list', `input '${decl.name}' declares \`runs\` but is a ${decl.type}, not a list; remove \`runs\` or make it \`type: list\``, [...path, 'runs'], e.keys.get('runs'));
      } else {
        decl.runs = runs as InputRuns;
      }
    }
    if (name !== undefined) {
      if (!patternRegExp(PATTERNS.inputName).test(name)) {
        w.report('input.pattern', `input '${name}' has a bad name; use lowercase letters, digits and underscores, starting with a letter`, [...path, 'name'], nameNode);
      } else if (seen.has(name)) {
        w.report('input.duplicate', `input '${name}' is declared twice; remove or rename one`, [...path, 'name'], nameNode);
      }
      seen.add(name);
      if (name === 'tickets' && !out.tickets) out.tickets = { index: i, decl, at: e.map };
    }
    if (typeOk) {
      const defaultNode = e.values.get('default');
      if (e.keys.has('default')) {
        if (!fitsInput(decl.type, defaultNode)) {
          w.report('input.default_type', `input '${decl.name}': \`default\` does not fit type ${decl.type}; give ${expect(decl.type)}`, [...path, 'default'], defaultNode ?? e.keys.get('default'));
        } else {
          decl.default = toJS(w, defaultNode);
        }
      }
      const oneOf = e.values.get('one_of');
      if (isSeq(oneOf)) {
        oneOf.items.forEach((x, j) => {
          const value = w.resolve(x);
          if (!fitsInput(decl.type, value)) {
            w.report('input.one_of_type', `input '${decl.name}': \`one_of\` value ${j + 1} does not fit type ${decl.type}; give ${expect(decl.type)}`, [...path, 'one_of', j], value ?? oneOf);
          }
        });
        decl.one_of = toJS(w, oneOf) as unknown[];
      }
    }
    out.model.inputs.push(decl);
  });
}

function readRoles(w: Walk, node: YNode, out: HeaderRead): void {
  if (!isSeq(node)) return;
  const seen = new Set<string>();
  node.items.forEach((item, i) => {
    const path = [...P, 'roles', i];
    const e = checkMap(w, w.resolve(item), RoleSlotSchema, path, { what: `header role ${i + 1}`, valueCodes: { node: null } });
    if (!e) return;
    for (const key of e.missing) {
      w.report('key.missing', `header role ${i + 1} has no \`${key}\`; add \`${key}:\``, [...path, key], e.map);
    }
    const roleNode = e.values.get('role');
    const role = str(roleNode);
    if (role !== undefined) {
      if (seen.has(role)) w.report('role.duplicate', `header role '${role}' appears twice; remove or rename one`, [...path, 'role'], roleNode);
      seen.add(role);
    }
    const nodeNode = e.values.get('node');
    const node = str(nodeNode);
    if (role !== undefined && node !== undefined) {
      out.model.roles.push({ role, node });
      out.roles.push({ role, node, at: nodeNode, path: [...path, 'node'] });
    }
  });
}

const INPUT_JSON: Record<InputType, readonly string[]> = {
  string: ['string'],
  number: ['number', 'integer'],
  integer: ['integer'],
  boolean: ['boolean'],
  list: ['array'],
};

function fitsInput(type: InputType, node: YNode): boolean {
  return INPUT_JSON[type].includes(typeOf(node));
}

function expect(type: InputType): string {
  return type === 'list' ? 'a list' : type === 'boolean' ? 'true or false' : `a ${type}`;
}

function toJS(w: Walk, node: YNode): unknown {
  try {
    // toJS keeps yaml's own alias-expansion guard; a value it refuses is left out of the model.
    return node ? node.toJS(w.doc) : null;
  } catch {
    return undefined;
  }
}
