import type { EntryState } from '../schema/state.js';
import type { Problem } from '../template/problems.js';
import type { Catalogue, TemplateModel } from '../template/model.js';

/** The state of every template and role (docs/api.md, States): the one list is src/schema/state.ts. */
export type { EntryState };

/**
 * What a list shows of a template's validation, kept for every template; the
 * problems and model themselves are kept for the most recently read only.
 */
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

/**
 * A template as the library answers it. listTemplates answers entries whose
 * `source`, `problems` and `model` are worked out when read (the file read
 * again, proven by its hash, and validated again), as thousands are listed
 * and only their outline is kept; getTemplate and a view answer them whole.
 */
export interface TemplateEntry {
  name: string;
  state: EntryState;
  /** a shipped template of this name exists */
  shipped: boolean;
  read_only: boolean;
  /** the marker's `copy` line does not match the file: changed without the service */
  edited_outside: boolean;
  /** the bytes that load (operator copy, else shipped) */
  source: string;
  /** today's shipped bytes, or null for a custom template */
  shipped_source: string | null;
  /** strong ETag of the bytes that load, quoted: `"sha256-hex"` */
  etag: string;
  valid: boolean;
  /** the list's view of the validation */
  outline: TemplateOutline;
  problems: Problem[];
  /** best-effort typed view; null when the document could not be read at all */
  model: TemplateModel | null;
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
}

export interface WriteOptions {
  /** the ETag the client last saw; a mismatch throws DeskError('precondition_failed') and changes nothing */
  ifMatch?: string;
  /** who asked, for the write log line (the client address) */
  who?: string;
  /**
   * Save only: called once the save is valid and its files are on their way
   * to the disk, with the entry the save will answer and the catalogue it was
   * validated against — work done here (the answer's card) runs while the
   * disk flushes. Its errors are ignored; it must not depend on the save landing.
   */
  whileWriting?: (entry: TemplateEntry, catalogue: Catalogue) => void;
}

/**
 * One look at the library: its folders proven current once, for an answer
 * that reads several entries (a template, its base, the catalogue its card
 * uses). Every call on a Library proves afresh; a view saves repeating those
 * stats within one request. Take a new view for every request.
 */
export interface LibraryView {
  catalogue: Catalogue;
  /** as Library.getTemplate, against this view's folders */
  getTemplate(name: string): Promise<TemplateEntry | null>;
}

/**
 * The library layer's face to the HTTP layer (docs/operations.md, docs/api.md). Every
 * failure is a DeskError from src/errors.ts; nothing here knows fastify.
 */
export interface Library {
  /** the operator's folder, or null when the library has no root */
  readonly root: string | null;
  catalogue(): Promise<Catalogue>;
  listTemplates(): Promise<TemplateEntry[]>;
  /** null when no template of that name exists */
  getTemplate(name: string): Promise<TemplateEntry | null>;
  /** a view for one request (openLibrary has it; callers fall back to catalogue() and getTemplate() without it) */
  view?(): Promise<LibraryView>;
  saveTemplate(name: string, source: string, opts?: WriteOptions): Promise<TemplateEntry>;
  resetTemplate(name: string, opts?: WriteOptions): Promise<TemplateEntry>;
  acknowledgeTemplate(name: string, opts?: WriteOptions): Promise<TemplateEntry>;
  deleteTemplate(name: string, opts?: WriteOptions): Promise<void>;
  /** the shipped bytes the copy was saved against, or null when none is kept */
  keptBase(name: string): Promise<string | null>;
  listRoles(): Promise<RoleEntry[]>;
  getRole(name: string): Promise<RoleEntry | null>;
  saveRole(name: string, roleMd: string, kit: { tools: string[] } | null, opts?: WriteOptions): Promise<RoleEntry>;
  resetRole(name: string, opts?: WriteOptions): Promise<RoleEntry>;
  /** finishes in-flight writes and releases the root lock */
  close(): Promise<void>;
}
