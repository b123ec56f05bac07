/**
 * The JSON the page reads, as docs/api.md fixes it. The page is a
 * separate build (no node types, no imports from the service), so these mirror
 * the route schemas by hand; fields the spec leaves open are optional.
 */
export type EntryState =
  | 'shipped'
  | 'same_as_shipped'
  | 'stale'
  | 'shipped_changed_since'
  | 'edited'
  | 'custom'
  | 'read_only';

export interface Problem {
  code: string;
  severity: 'error' | 'warning';
  message: string;
  path: string;
  line?: number;
  column?: number;
}

export interface TemplateListItem {
  name: string;
  purpose: string;
  shipped: boolean;
  read_only: boolean;
  state: EntryState;
  edited_outside: boolean;
  ticket: boolean;
  writes: boolean;
  closes_ticket: boolean;
  base: string | null;
  valid: boolean;
  /** counts, or the problems themselves: both are read */
  errors: number | Problem[];
  warnings: number | Problem[];
}

export interface CardNode {
  id: string;
  type: string;
  role?: string | null;
  model?: string | null;
  profile?: string | null;
  builtin?: string | null;
  tool?: string | null;
  touches: string[];
  inlets: string[];
  outlets: string[];
  line?: number | null;
}

export interface Cord {
  from: string;
  to: string;
  line?: number | null;
}

export interface Card {
  name: string;
  purpose: string | null;
  valid: boolean;
  problems: Problem[];
  ticket: boolean;
  header?: {
    entry?: string | null;
    inlet?: string | null;
    terminal?: string | null;
    base?: string | null;
    writes?: boolean;
    closes_ticket?: boolean;
    inputs?: { name: string; required: boolean; type: string }[];
  };
  nodes: CardNode[];
  cords: Cord[];
  diff?: TemplateDiff | null;
  name_differs?: boolean;
  purpose_differs?: boolean;
}

export interface TemplateDetail {
  name: string;
  state: EntryState;
  shipped: boolean;
  read_only: boolean;
  edited_outside?: boolean;
  source: string;
  shipped_source: string | null;
  valid: boolean;
  problems: Problem[];
  card: Card;
}

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

export interface GraphDiff {
  header: FieldChange[];
  nodes: {
    added: { id: string; type: string; line: number | null }[];
    removed: { id: string; type: string; line: number | null }[];
    changed: { id: string; changes: FieldChange[] }[];
  };
  cords: { added: { from: string; to: string }[]; removed: { from: string; to: string }[] };
}

export interface TemplateDiff {
  against: { name: string; kind: string };
  identical: boolean;
  unified: string;
  graph: GraphDiff;
}

export interface RebaseResult {
  merged: string;
  /** a count, or the conflicting hunks */
  conflicts: number | unknown[];
  valid: boolean;
  problems: Problem[];
}

export interface RoleListItem {
  name: string;
  shipped: boolean;
  state: EntryState;
  edited_outside: boolean;
  has_kit: boolean;
}

export interface Kit {
  tools: string[];
}

export interface RoleDetail {
  name: string;
  state: EntryState;
  edited_outside?: boolean;
  role_md: string;
  kit: Kit | null;
  shipped_role_md: string | null;
  shipped_kit: Kit | null;
}
