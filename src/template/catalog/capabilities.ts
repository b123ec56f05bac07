/** Capabilities a `capability_assert` node can be `over` (docs/format.md, Builtin nodes). */
export const CAPABILITIES = {
  complete_ticket: 'the ticket is done: the work landed and the evidence exists',
  land_workspace: 'the workspace can land',
  cite_sources: "every claim cites a source that was fetched",
} as const satisfies Record<string, string>;

export type CapabilityName = keyof typeof CAPABILITIES;

export function isCapability(name: string): name is CapabilityName {
  return Object.hasOwn(CAPABILITIES, name);
}
