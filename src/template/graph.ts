/**
 * Rules across header, nodes and cords (docs/format.md, The header and Graph rules): roles,
 * entry and terminal, the ticket contract, unproven ticket mutation, honest
 * declarations, and — when no cap was hit — the reachability rules (land
 * behind a human gate, the capability proof before every node that may
 * mutate tickets, unreachable nodes, a path to ticket_close).
 */
import { isProfile, PROFILES, TICKET_MUTATION_TOUCH, WORKSPACE_WRITE_TOUCH } from './catalog/profiles.js';
import { TICKET_WRITING_TOOLS } from './catalog/tools.js';
import type { Edge } from './cords.js';
import type { HeaderRead } from './header.js';
import type { NodeRead, NodesRead } from './nodes.js';
import type { Walk, YNode } from './walk.js';

const H = 'template';

export interface GraphInput {
  header: HeaderRead;
  nodes: NodesRead;
  edges: Edge[];
  /** a cap was hit: skip the reachability rules (caps come before graph work, so no input is slow) */
  overCap: boolean;
}

export function checkGraph(w: Walk, g: GraphInput): void {
  const { header, nodes, edges } = g;
  const h = header.model;
  const at = (key: string): YNode => header.entries?.values.get(key) ?? header.entries?.keys.get(key) ?? header.entries?.map;

  for (const r of header.roles) {
    const n = nodes.byId.get(r.node);
    if (!n) w.report('role.node_unknown', `header role '${r.role}' names node '${r.node}', which does not exist; name a model node`, r.path, r.at);
    else if (n.model.type !== 'model') w.report('role.not_model', `header role '${r.role}' names node '${r.node}', a ${n.model.type} node; name a model node`, r.path, r.at);
  }

  const entry = h.entry !== undefined ? nodes.byId.get(h.entry) : undefined;
  if (h.entry !== undefined && !entry) {
    w.report('entry.unknown_node', `the header's \`entry\` names node '${h.entry}', which does not exist; name the first node`, [H, 'entry'], at('entry'));
  }
  if (entry && h.inlet !== undefined && entry.portsKnown && !entry.model.inlets.includes(h.inlet)) {
    w.report('entry.unknown_inlet', `the header's \`inlet\` is '${h.inlet}', not an inlet of node '${entry.model.id}'; use one of ${entry.model.inlets.join(', ')}`, [H, 'inlet'], at('inlet'));
  }

  if (h.terminal !== undefined) {
    if (!nodes.byId.has(h.terminal)) {
      w.report('terminal.unknown_node', `the header's \`terminal\` names node '${h.terminal}', which does not exist; name the last node or remove \`terminal\``, [H, 'terminal'], at('terminal'));
    } else {
      for (const e of edges) {
        if (e.from === h.terminal) w.report('terminal.wired_after', `a cord leaves the terminal node '${h.terminal}' (to ${e.to}.${e.inlet}); remove the cord or change \`terminal\``, [...e.path, 'from'], e.at);
      }
    }
  }

  const all = nodes.nodes;
  const isModel = (n: NodeRead, role: string) => n.model.type === 'model' && n.model.role === role;
  const isBuiltin = (n: NodeRead, b: string) => n.model.type === 'builtin' && n.model.builtin === b;
  const proves = (n: NodeRead) => isBuiltin(n, 'capability_assert') && n.model.args?.over === 'complete_ticket';

  if (h.closes_ticket) {
    const tickets = header.tickets;
    if (!tickets?.decl.required) {
      const path = tickets ? [H, 'inputs', tickets.index] : [H, 'inputs'];
      const where = tickets?.at ?? header.entries?.values.get('inputs') ?? at('closes_ticket');
      w.report('ticket.tickets_input', 'the template closes tickets but has no input `tickets` with `required: true`; add `{ name: tickets, required: true, type: list }` under `inputs:`', path, where);
    }
    if (entry && (!isModel(entry, 'ticket_intake') || h.inlet !== 'start')) {
      w.report('ticket.entry_intake', `the template closes tickets, so its entry must be a model node with role ticket_intake at inlet start; '${entry.model.id}.${h.inlet ?? '?'}' is not`, [H, 'entry'], at('entry'));
    }
    if (!all.some((n) => isBuiltin(n, 'workspace_land'))) {
      w.report('ticket.land_missing', 'the template closes tickets but has no workspace_land node; add one behind a human gate', ['nodes'], at('closes_ticket'));
    }
    if (!all.some((n) => isModel(n, 'ticket_close'))) {
      w.report('ticket.close_missing', 'the template closes tickets but has no model node with role ticket_close; add one', ['nodes'], at('closes_ticket'));
    }
    const proof = nodes.byId.get('completion_proof');
    if (!proof || !proves(proof)) {
      w.report('ticket.completion_proof', 'the template closes tickets, so it needs a node `completion_proof` that is a capability_assert over complete_ticket; add `completion_proof: { type: builtin, builtin: capability_assert, over: complete_ticket }`', proof ? proof.path : ['nodes'], proof?.keyNode ?? at('closes_ticket'));
    }
  } else if (!all.some(proves)) {
    for (const n of all) {
      const why = mutatesTickets(n);
      if (why) {
        w.report('ticket.mutation_unproven', `node '${n.model.id}' may change tickets (${why.reason}) but nothing proves the ticket complete; add a capability_assert over complete_ticket before it`, [...n.path, why.key], n.keyNode);
      }
    }
  }

  // A `writes` of the wrong type was reported already; the warning would only repeat it.
  const writesUnread = header.entries?.keys.has('writes') && !header.entries.values.has('writes');
  if (!h.writes && !writesUnread) {
    const writers = all.filter((n) => n.model.touches.includes(WORKSPACE_WRITE_TOUCH) || isBuiltin(n, 'workspace_land'));
    if (writers.length) {
      const names = writers.map((n) => `'${n.model.id}'`).join(', ');
      w.report('declare.writes', `the header declares writes: false but node ${names} writes the workspace; set \`writes: true\``, [H, 'writes'], at('writes'));
    }
  }

  if (g.overCap || !entry) return;
  reachability(w, g, entry, at('closes_ticket'));
}

/**
 * Whether a node may mutate tickets (docs/format.md): a model node whose
 * profile touches tickets.write or whose role's kit grants a ticket-writing
 * tool, or a tool node naming one. Returns the key that makes it so (where the
 * problem points) and why, or null.
 */
function mutatesTickets(n: NodeRead): { key: string; reason: string } | null {
  const m = n.model;
  if (m.type === 'model') {
    if (m.profile !== undefined && isProfile(m.profile) && (PROFILES[m.profile] as readonly string[]).includes(TICKET_MUTATION_TOUCH)) {
      return { key: 'profile', reason: `profile ${m.profile}` };
    }
    const granted = m.kit?.find((t) => (TICKET_WRITING_TOOLS as readonly string[]).includes(t));
    if (granted) return { key: 'role', reason: `role ${m.role}'s kit grants ${granted}` };
  } else if (m.type === 'tool' && m.tool !== undefined && (TICKET_WRITING_TOOLS as readonly string[]).includes(m.tool)) {
    return { key: 'tool', reason: `tool ${m.tool}` };
  }
  return null;
}

function reachability(w: Walk, g: GraphInput, entry: NodeRead, closesAt: YNode): void {
  const { nodes, edges } = g;
  const out = new Map<string, Edge[]>();
  for (const e of edges) {
    const list = out.get(e.from);
    if (list) list.push(e);
    else out.set(e.from, [e]);
  }
  const isGate = (id: string) => nodes.byId.get(id)?.model.builtin === 'human_gate' && nodes.byId.get(id)?.model.type === 'builtin';

  // BFS over cords with every human_gate `approved` cord removed; `prev` gives one shortest path back.
  const prev = bfs(entry.model.id, out, (e) => !(e.outlet === 'approved' && isGate(e.from)));
  for (const n of nodes.nodes) {
    if (n.model.type === 'builtin' && n.model.builtin === 'workspace_land' && prev.has(n.model.id)) {
      const path: string[] = [];
      for (let id: string | undefined = n.model.id; id !== undefined; id = prev.get(id) ?? undefined) path.unshift(id);
      w.report('land.ungated', `node '${n.model.id}' lands without a human gate's approval: ${path.join(' → ')}; route it through a human_gate's approved outlet`, n.path, n.keyNode);
    }
  }

  // the capability proof stands before what it guards: on every path from the entry, a proof's `held`
  // outlet comes before a node that may mutate tickets (its `failed` outlet proves nothing)
  const isProof = (id: string) => {
    const m = nodes.byId.get(id)?.model;
    return m?.type === 'builtin' && m.builtin === 'capability_assert' && m.args?.over === 'complete_ticket';
  };
  if (nodes.nodes.some((n) => isProof(n.model.id))) {
    const unproven = bfs(entry.model.id, out, (e) => !(e.outlet === 'held' && isProof(e.from)));
    for (const n of nodes.nodes) {
      const why = unproven.has(n.model.id) ? mutatesTickets(n) : null;
      if (!why) continue;
      const path: string[] = [];
      for (let id: string | undefined = n.model.id; id !== undefined; id = unproven.get(id) ?? undefined) path.unshift(id);
      w.report('ticket.mutation_unproven', `node '${n.model.id}' may change tickets (${why.reason}) but a path from the entry reaches it with no capability_assert over complete_ticket held before it: ${path.join(' → ')}; put the proof on that path, before the node`, [...n.path, why.key], n.keyNode);
    }
  }

  const reached = bfs(entry.model.id, out, () => true);
  for (const n of nodes.nodes) {
    if (!reached.has(n.model.id)) w.report('node.unreachable', `node '${n.model.id}' is not reached from the entry '${entry.model.id}'; wire a cord to it or remove it`, n.path, n.keyNode);
  }

  if (g.header.model.closes_ticket) {
    const closers = nodes.nodes.filter((n) => n.model.type === 'model' && n.model.role === 'ticket_close');
    if (closers.length && !closers.some((n) => reached.has(n.model.id))) {
      w.report('declare.closes_ticket', 'the header declares closes_ticket: true but no path from the entry reaches the ticket_close node; wire it in or set `closes_ticket: false`', ['template', 'closes_ticket'], closesAt);
    }
  }
}

/** Breadth-first search; returns each reached node mapped to its predecessor (null for the start). */
function bfs(start: string, out: Map<string, Edge[]>, follow: (e: Edge) => boolean): Map<string, string | null> {
  const prev = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const e of out.get(queue[i]!) ?? []) {
      if (!prev.has(e.to) && follow(e)) {
        prev.set(e.to, e.from);
        queue.push(e.to);
      }
    }
  }
  return prev;
}
