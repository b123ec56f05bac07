/**
 * Permission profiles for model nodes (template-format.md §4): what a node with
 * the profile can touch. The card shows these; `tickets.write` is what makes a
 * node one that "may mutate tickets" (§5).
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

/** The touch that lets a node change tickets (§5, unproven ticket mutation). */
export const TICKET_MUTATION_TOUCH = 'tickets.write';
/** The touch that makes `writes: false` dishonest (§5, honest declarations). */
export const WORKSPACE_WRITE_TOUCH = 'workspace.write';
