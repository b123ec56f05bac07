/**
 * The diff of two templates as the format layer makes it (diff.ts; docs/api.md,
 * diff): plain types. src/schema/diff.ts holds the same shapes as TypeBox
 * schemas for the HTTP layer and checks at compile time that they agree.
 */

/** A header or node field that differs; a side where it is absent says null. */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** A node added or removed, with its line in the side it is on. */
export interface NodeRef {
  id: string;
  type: string;
  line: number | null;
}

export interface CordRef {
  from: string;
  to: string;
}

export interface GraphDiff {
  /** header fields (and the patch version) that changed */
  header: FieldChange[];
  nodes: {
    added: NodeRef[];
    removed: NodeRef[];
    changed: { id: string; changes: FieldChange[] }[];
  };
  cords: { added: CordRef[]; removed: CordRef[] };
}

/** What a template is diffed against: a shipped version, its `base`, another library template, or a version from history. */
export type AgainstKind = 'shipped' | 'base' | 'template' | 'version';

export interface TemplateDiff {
  /** kind `version`: `commit` names the commit */
  against: { name: string; kind: AgainstKind; commit?: string };
  /** the two sources are byte for byte the same */
  identical: boolean;
  /** unified text diff, before = the template diffed against; null when too_different */
  unified: string | null;
  /** the texts differ in too many lines for a line diff within its bounds; the graph diff is still given */
  too_different: boolean;
  graph: GraphDiff;
}
