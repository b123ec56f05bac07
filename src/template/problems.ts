import { type Static, Type } from '@sinclair/typebox';

/**
 * The public list of problem codes (docs/problems.md). A code is a
 * contract: add one only with a test and a line in docs/problems.md, and never
 * reuse one for another meaning. `docs/problems.md` is checked against this
 * table by test/docs.test.ts.
 */
export const PROBLEM_CODES = {
  'yaml.syntax': { severity: 'error', summary: 'the YAML does not parse' },
  'yaml.multiple_documents': { severity: 'error', summary: 'more than one document, or a directive' },
  'yaml.duplicate_key': { severity: 'error', summary: 'a key twice in one mapping' },
  'yaml.alias_limit': { severity: 'error', summary: 'more aliases than the cap' },
  'yaml.tag': { severity: 'error', summary: 'a custom tag' },
  'limit.size': { severity: 'error', summary: 'the source is over the size cap, or nested deeper than the depth cap' },
  'limit.nodes': { severity: 'error', summary: 'more nodes than the cap' },
  'limit.cords': { severity: 'error', summary: 'more cords than the cap' },
  'doc.not_mapping': { severity: 'error', summary: 'the document, or a part that must be a mapping, is not one' },
  'key.unknown': { severity: 'error', summary: 'a key the format does not have' },
  'key.missing': { severity: 'error', summary: 'a required key is absent' },
  'type.mismatch': { severity: 'error', summary: 'a value of the wrong type' },
  'name.pattern': { severity: 'error', summary: 'bad template name' },
  'name.mismatch': { severity: 'error', summary: 'name differs from the file, URL or proposal name' },
  'name.reserved': { severity: 'error', summary: 'a template named `shipped` or `base`, the diff route\'s `?against=` keywords' },
  'purpose.empty': { severity: 'error', summary: 'purpose missing or blank' },
  'purpose.multiline': { severity: 'error', summary: 'purpose with a line break' },
  'base.pattern': { severity: 'error', summary: 'bad base name' },
  'base.unknown': { severity: 'warning', summary: 'base names no template in the library' },
  'input.unnamed': { severity: 'error', summary: 'an input without a name' },
  'input.pattern': { severity: 'error', summary: 'an input with a bad name' },
  'input.duplicate': { severity: 'error', summary: 'an input named twice' },
  'input.default_type': { severity: 'error', summary: 'a default that does not fit the input type' },
  'input.one_of_type': { severity: 'error', summary: 'a one_of value that does not fit the input type' },
  'input.runs_not_list': { severity: 'error', summary: '`runs` on an input that is not a list' },
  'role.duplicate': { severity: 'error', summary: 'a header role twice' },
  'role.node_unknown': { severity: 'error', summary: 'a header role naming no node' },
  'role.not_model': { severity: 'error', summary: 'a header role naming a node that is not a model node' },
  'entry.unknown_node': { severity: 'error', summary: 'the entry node does not exist' },
  'entry.unknown_inlet': { severity: 'error', summary: 'the entry inlet is not an inlet of the entry node' },
  'terminal.unknown_node': { severity: 'error', summary: 'the terminal node does not exist' },
  'terminal.wired_after': { severity: 'error', summary: 'a cord leaves the terminal node' },
  'patch.version': { severity: 'error', summary: 'unsupported patch version' },
  'patch.no_nodes': { severity: 'error', summary: 'no nodes' },
  'node.id_pattern': { severity: 'error', summary: 'bad node id' },
  'node.type_unknown': { severity: 'error', summary: 'unknown node type' },
  'node.subpatch': { severity: 'error', summary: 'a subpatch node' },
  'node.unreachable': { severity: 'warning', summary: 'no path from the entry reaches the node' },
  'model.role_missing': { severity: 'error', summary: 'model node without a role' },
  'model.role_unknown': { severity: 'error', summary: 'model node with a role the library does not know' },
  'model.profile_missing': { severity: 'error', summary: 'model node without a profile' },
  'model.profile_unknown': { severity: 'error', summary: 'model node with an unknown profile' },
  'model.port_duplicate': { severity: 'error', summary: 'an inlet or outlet named twice' },
  'model.prompt_input_unknown': { severity: 'error', summary: '{{inputs.X}} with no input X' },
  'builtin.unknown': { severity: 'error', summary: 'not one of the known builtins' },
  'builtin.argument_missing': { severity: 'error', summary: 'a required builtin argument is absent' },
  'builtin.argument_unknown': { severity: 'error', summary: 'an argument the builtin does not take' },
  'builtin.capability_unknown': { severity: 'error', summary: '`over` names no capability' },
  'tool.extra_key': { severity: 'error', summary: 'a tool node declaring more than its tool id' },
  'tool.unknown': { severity: 'error', summary: 'an unknown tool id' },
  'cord.endpoint': { severity: 'error', summary: 'a cord end not of the form node.port' },
  'cord.node_unknown': { severity: 'error', summary: 'a cord end naming no node' },
  'cord.port_unknown': { severity: 'error', summary: 'a cord end naming no port of that direction' },
  'cord.duplicate': { severity: 'error', summary: 'the same cord twice' },
  'loop.unbounded': { severity: 'warning', summary: 'a loop no human gate breaks, with no node declaring max_visits' },
  'land.ungated': { severity: 'error', summary: "a land node reachable without passing a human gate's approved outlet" },
  'ticket.tickets_input': { severity: 'error', summary: 'a ticket template without a required `tickets` input' },
  'ticket.entry_intake': { severity: 'error', summary: 'a ticket template whose entry is not a ticket_intake model node at inlet start' },
  'ticket.land_missing': { severity: 'error', summary: 'a ticket template without a workspace_land node' },
  'ticket.close_missing': { severity: 'error', summary: 'a ticket template without a ticket_close model node' },
  'ticket.completion_proof': { severity: 'error', summary: 'a ticket template without completion_proof asserting complete_ticket' },
  'ticket.mutation_unproven': { severity: 'error', summary: 'a node may mutate tickets with no capability_assert over complete_ticket' },
  'declare.writes': { severity: 'warning', summary: 'writes: false but a node writes the workspace or lands' },
  'declare.closes_ticket': { severity: 'warning', summary: 'closes_ticket: true but no path reaches the ticket_close node' },
  // Launch codes (src/template/launch.ts): about the inputs a launch preview carries, never about the template.
  'input.unknown': { severity: 'error', summary: 'a launch input the template does not declare' },
  'input.missing': { severity: 'error', summary: 'a required launch input with no value and no default (or an empty required list)' },
  'input.type': { severity: 'error', summary: 'a launch input value, or a list item, of the wrong type' },
  'input.one_of': { severity: 'error', summary: 'a launch input value not among its one_of values' },
  'input.introduces_machinery': { severity: 'error', summary: 'a launch input value that brings a placeholder {{…}} or a directive fence ::: into a folded prompt' },
  'input.too_many_runs': { severity: 'error', summary: 'a list that launches one run per item has more items than the run cap' },
  'input.runs_conflict': { severity: 'error', summary: 'two list inputs both launch one run per item' },
  'input.too_large': { severity: 'error', summary: 'the folded prompts of a launch preview would be over the size cap' },
  'note.invalid': { severity: 'error', summary: 'a save note that is not one line of at most 200 characters' },
  'file.unreadable': { severity: 'error', summary: 'a library file that cannot be read: a symbolic link (never followed), not a regular file, or an I/O error' },
} as const satisfies Record<string, { severity: 'error' | 'warning'; summary: string }>;

export type ProblemCode = keyof typeof PROBLEM_CODES;
export type Severity = 'error' | 'warning';

export const ProblemSchema = Type.Object(
  {
    code: Type.String({ description: 'stable dotted id from docs/problems.md, e.g. model.profile_missing' }),
    severity: Type.Union([Type.Literal('error'), Type.Literal('warning')]),
    message: Type.String({ description: 'one sentence naming the field and what to do' }),
    path: Type.String({ description: 'JSON Pointer into the document, e.g. /nodes/plan/profile' }),
    line: Type.Optional(Type.Integer({ minimum: 1 })),
    column: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: 'Problem', additionalProperties: false },
);

export type Problem = Omit<Static<typeof ProblemSchema>, 'code'> & { code: ProblemCode };

export function isProblemCode(code: string): code is ProblemCode {
  return Object.hasOwn(PROBLEM_CODES, code);
}

/** Builds a problem with the catalogue's severity for its code. */
export function problem(
  code: ProblemCode,
  message: string,
  path: string,
  pos?: { line: number; column: number },
): Problem {
  const p: Problem = { code, severity: PROBLEM_CODES[code].severity, message, path };
  if (pos) {
    p.line = pos.line;
    p.column = pos.column;
  }
  return p;
}

/** JSON Pointer (RFC 6901) from path segments. */
export function pointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => '/' + String(s).replaceAll('~', '~0').replaceAll('/', '~1')).join('');
}

export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}
