/**
 * Templates that code registers as read-only (docs/api.md, States: read_only): input
 * templates the desk itself depends on. They are listed with
 * `read_only: true` and state `read_only`; saving, resetting or deleting
 * under their names is refused, and an operator file of the same name is
 * ignored rather than loaded.
 */

/** The ticket input form: what a ticket run starts from, read and handed on, nothing written. */
const TICKET_INPUT = `# Registered by code (src/library/read-only.ts): read-only in the library.
template:
  name: ticket-input
  purpose: Read the tickets a run starts from and hand on what each one asks for
  inputs:
    - name: tickets
      required: true
      type: list
      description: the ticket ids the run starts from
  roles:
    - { role: ticket_intake, node: read }
  entry: read
  inlet: start
  terminal: read
version: 1
nodes:
  read:
    type: model
    role: ticket_intake
    profile: read_only
    prompt: >-
      Read {{inputs.tickets}} and say, for each, what it asks for and how its
      completion will be seen. Change nothing.
cords: []
`;

/** name → source. The default set for openLibrary's `readOnlyTemplates`. */
export const READ_ONLY_TEMPLATES: ReadonlyMap<string, string> = new Map([['ticket-input', TICKET_INPUT]]);
