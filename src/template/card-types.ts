/**
 * The card as the format layer builds it (card.ts; docs/api.md): plain types.
 * src/schema/card.ts holds the same shapes as TypeBox schemas for the HTTP
 * layer and checks at compile time that they agree.
 */
import type { TemplateDiff } from './diff-types.js';
import type { InputRuns } from './model.js';
import type { Problem } from './problems.js';

export interface CardNode {
  id: string;
  /** model, builtin or tool; an unknown type as written */
  type: string;
  role: string | null;
  model: string | null;
  profile: string | null;
  builtin: string | null;
  tool: string | null;
  /** what the node can touch: its profile's, then what its role's kit grants; or its tool id */
  touches: string[];
  /** how many times a run may enter the node; bounds its loops */
  max_visits: number | null;
  inlets: string[];
  outlets: string[];
  line: number | null;
}

/** A loop no human gate breaks (model.ts LoopModel), as the card shows it. */
export interface CardLoop {
  cycle: string[];
  nodes: string[];
  bounds: { node: string; max_visits: number }[];
  bounded: boolean;
}

export interface CardInput {
  name: string;
  required: boolean;
  type: string;
  description?: string;
  default?: unknown;
  one_of?: unknown[];
  /** a list input: as declared, or the default */
  runs?: InputRuns;
}

export interface CardHeader {
  name: string | null;
  purpose: string | null;
  base: string | null;
  inputs: CardInput[];
  roles: { role: string; node: string }[];
  writes: boolean;
  closes_ticket: boolean;
  entry: string | null;
  inlet: string | null;
  terminal: string | null;
}

export interface CardCord {
  from: string;
  to: string;
  line: number | null;
}

export interface Card {
  /** the name argument (URL or proposal name) */
  name: string;
  /** the header's purpose, else the purpose argument */
  purpose: string | null;
  valid: boolean;
  problems: Problem[];
  /**
   * closes_ticket with a required tickets input. A launch starts one run per
   * ticket, unless the tickets input declares `runs: together` (as batch
   * does), which starts one run with the whole list.
   */
  ticket: boolean;
  header: CardHeader;
  nodes: CardNode[];
  loops: CardLoop[];
  cords: CardCord[];
  /** against the header base, else the library template of the same name, else null */
  diff: TemplateDiff | null;
  /** the name argument is not the header's name */
  name_differs: boolean;
  /** a purpose argument was given and is not the header's purpose */
  purpose_differs: boolean;
}
