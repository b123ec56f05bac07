/**
 * What the library core answers and takes, as plain types: a template's and
 * a role's entry, the options of a write, and the core's read and write
 * calls. Nothing here imports the rest of src/library, so every part of it —
 * the core, history, the features above — can name these without importing
 * the Library contract (types.ts), which names the features in turn.
 */
import type { EntryState } from '../schema/state.js';
import type { DivergedWhy } from '../schema/sync.js';
import type { Card } from '../template/card.js';
import type { Catalogue, TemplateModel } from '../template/model.js';
import type { Problem } from '../template/problems.js';

/** The state of every template and role (docs/api.md, States): the one list is src/schema/state.ts. */
export type { EntryState };

/** What a list shows of a template's validation. */
export interface TemplateOutline {
  valid: boolean;
  purpose: string | null;
  base: string | null;
  /** closes_ticket with a required tickets input */
  ticket: boolean;
  writes: boolean;
  closes_ticket: boolean;
  /** how many problems of severity error and warning */
  errors: number;
  warnings: number;
}

/** What loads for a name and its state, before any validation: plain data. */
export interface TemplateFacts {
  name: string;
  state: EntryState;
  /** a shipped template of this name exists */
  shipped: boolean;
  read_only: boolean;
  /** the marker's `copy` line does not match the file: changed without the service */
  edited_outside: boolean;
  /** lowercase hex sha256 of the bytes that load */
  hash: string;
  /** strong ETag of the bytes that load, quoted: `"sha256-hex"` */
  etag: string;
}

/** A template as the list shows it: its facts and its validation's outline. */
export type TemplateEntry = TemplateFacts & TemplateOutline;

/** One template in full, as a single-template request answers it. */
export interface TemplateDetail extends TemplateEntry {
  /** the bytes that load (operator copy, else shipped); '' when the file cannot be read */
  source: string;
  /** today's shipped bytes, or null for a custom template */
  shipped_source: string | null;
  problems: Problem[];
  /** best-effort typed view; null when the document could not be read at all */
  model: TemplateModel | null;
  /** the card (docs/api.md), when asked for */
  card?: Card;
  /** why, while the state is `diverged` (docs/history.md, Diverged) */
  diverged?: DivergedWhy;
}

export interface RoleEntry {
  name: string;
  state: EntryState;
  shipped: boolean;
  edited_outside: boolean;
  role_md: string;
  /** parsed kit.json, or null when the role has no kit */
  kit: { tools: string[] } | null;
  shipped_role_md: string | null;
  shipped_kit: { tools: string[] } | null;
  /** strong ETag over the role's revision (role.md, kit.json, whether the kit exists) */
  etag: string;
  valid: boolean;
  problems: Problem[];
  /** why, while the state is `diverged` */
  diverged?: DivergedWhy;
}

export interface WriteOptions {
  /** the ETag the client last saw; a mismatch throws DeskError('precondition_failed') and changes nothing */
  ifMatch?: string;
  /**
   * Template saves: `*` refuses the save with precondition_failed when the
   * name exists (a GET of it answers 200: an operator copy, or a shipped or
   * read-only template), so two windows creating one name cannot overwrite
   * each other; a list of ETags refuses when the current one is among them.
   */
  ifNoneMatch?: string;
  /** who asked, for the write log line and the history commit's `Who:` trailer (the client address) */
  who?: string;
  /** a restore: the (short) commit the text came from; the history commit reads `restore quick-fix to 1a2b3c4` */
  restoredFrom?: string;
  /** a template restore: the shipped version (sha256) the restored version's own marker names, which the copy keeps (docs/api.md, restore) */
  restoredShipped?: string;
  /** saves: the operator's one-line note, checked by templates/note.ts, written into the history subject (`save quick-fix: tighten the gate`) */
  note?: string;
  /** template writes: answer with the card, built after the write against the catalogue then. Default: false */
  card?: boolean;
  /**
   * a template save made by saving a proposal (records/proposal.ts): the history commit reads
   * `save quick-fix from proposal <id>` (`, with the operator's edits` when `edited`), with a
   * `Proposed-by: <by>` trailer beside `Who:` when the proposer is known (docs/history.md)
   */
  proposal?: { id: string; edited: boolean; by: string | null };
}

/** The core's reads (reader.ts): each looks at the disk afresh, and none writes. */
export interface LibraryReads {
  catalogue(): Promise<Catalogue>;
  /** sorted by name */
  listTemplates(): Promise<TemplateEntry[]>;
  /** null when no template of that name exists; `card`: with its card */
  getTemplate(name: string, opts?: { card?: boolean }): Promise<TemplateDetail | null>;
  listRoles(): Promise<RoleEntry[]>;
  getRole(name: string): Promise<RoleEntry | null>;
}

/** The core's writes of one name (writes.ts): each lands on disk, then is one history commit and one event. */
export interface LibraryWrites {
  saveTemplate(name: string, source: string, opts?: WriteOptions): Promise<TemplateDetail>;
  resetTemplate(name: string, opts?: WriteOptions): Promise<TemplateDetail>;
  acknowledgeTemplate(name: string, opts?: WriteOptions): Promise<TemplateDetail>;
  deleteTemplate(name: string, opts?: WriteOptions): Promise<void>;
  saveRole(name: string, roleMd: string, kit: { tools: string[] } | null, opts?: WriteOptions): Promise<RoleEntry>;
  resetRole(name: string, opts?: WriteOptions): Promise<RoleEntry>;
  /** deletes a custom role; a built-in role's name is not_custom (reset it instead) */
  deleteRole(name: string, opts?: WriteOptions): Promise<void>;
}
