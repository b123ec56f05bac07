/**
 * Permission profiles for model nodes (docs/format.md, Profiles): what a node with
 * the profile can touch. The card shows these; `tickets.write` is what makes a
 * node one that "may mutate tickets" (docs/format.md, Model nodes).
 */
export const PROFILES = {
  read_only: ['workspace.read', 'tickets.read'],
  web_research: ['workspace.read', 'web.fetch'],
  workspace_write: ['workspace.read', 'workspace.write', 'shell.run'],
  ticket_write: ['tickets.read', 'tickets.write'],
  document_write: ['documents.read', 'documents.write'],
} as const satisfies Record<string, readonly string[]>;

export type ProfileName = keyof typeof PROFILES;

export function isProfile(name: string): name is ProfileName {
  return Object.hasOwn(PROFILES, name);
}

/** The touch that lets a node change tickets (ticket.mutation_unproven, docs/problems.md). */
export const TICKET_MUTATION_TOUCH = 'tickets.write';
/** The touch that makes `writes: false` dishonest (declare.writes, docs/problems.md). */
export const WORKSPACE_WRITE_TOUCH = 'workspace.write';
