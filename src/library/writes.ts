import { DeskError } from '../errors.js';
import type { LibraryContext } from './context.js';
import { etagOf, formatMarker, ifMatchPasses, roleRevision, sha256Hex } from './disk/markers.js';
import { type After, type Door, fileSteps as steps, type Write } from './door.js';
import { checkTemplateName } from './layout.js';
import { pointLook } from './look.js';
import { canonicalJson, canonicalRoleMd } from './roles/canonical.js';
import { type RoleCopyView, readRoleCopy } from './role-copy.js';
import { roleEntry } from './roles/entries.js';
import { writeRoleReset, writeRoleSave } from './roles/files.js';
import { validateKit, validateRoleMd } from './roles/validate.js';
import type { Shipped } from './shipped.js';
import { checkNote } from './templates/note.js';
import { readKeptBase, writeTemplateAcknowledge, writeTemplateDelete, writeTemplateReset, writeTemplateSave } from './templates/files.js';
import { getTemplate, readFacts, type TemplateRead } from './templates/read.js';
import type { LibraryWrites, RoleEntry, TemplateDetail, TemplateFacts, WriteOptions } from './entries.js';
import { type Unit, roleUnit, templateUnit } from './unit.js';

/**
 * Every write of a template or a role through the service, one function
 * each. Each names its unit and gives the door (door.ts) what is its own:
 * the refusals, the body check, what stands, the preconditions, the file
 * steps (templates/files.ts, roles/files.ts) and what it became. The door
 * runs them in the one order (docs/history.md, "How a write becomes a commit").
 */

/** What the writes read and decide with: the door, the shipped files, and a few reads — not the readers' whole context. */
export interface WriteContext {
  door: Door;
  shipped: Shipped;
  readOnly: ReadonlyMap<string, string>;
  reads: WriteReads;
}

/** The reads a write makes: what stands before, whether it landed, the answer after. */
export interface WriteReads {
  facts(name: string): TemplateRead | null;
  template(name: string, card?: boolean): TemplateDetail | null;
  /** a body's validation, memoised: the answer after the save takes it from the memo */
  valid(name: string, source: string, hash: string): { valid: boolean; problems: unknown[] };
  role(name: string): RoleEntry | null;
  roleCopy(name: string): RoleCopyView;
}

export function writeReads(ctx: LibraryContext): WriteReads {
  return {
    facts: (name) => readFacts(ctx, name),
    template: (name, card) => getTemplate(ctx, name, card),
    valid: (name, source, hash) => ctx.memo.whole(name, source, hash, pointLook(ctx)).validation,
    role: (name) => roleEntry(ctx, name),
    roleCopy: (name) => readRoleCopy(ctx, name),
  };
}

export type Writes = LibraryWrites;

type Verb = 'save' | 'reset' | 'acknowledge' | 'delete';
const OP: Record<Verb, string> = { save: 'saved', reset: 'reset', acknowledge: 'acknowledged', delete: 'deleted' };

/**
 * If-None-Match (RFC 9110 §13.1.2): `*` fails when the name exists at all,
 * a list of tags when the current ETag is among them (weak comparison).
 * Nothing there: it passes.
 */
export function ifNoneMatchPasses(ifNoneMatch: string | undefined, currentEtag: string | null): boolean {
  if (ifNoneMatch === undefined || currentEtag === null) return true;
  const wanted = ifNoneMatch.trim();
  if (wanted === '*') return false;
  return !wanted.split(',').some((t) => t.trim().replace(/^W\//, '') === currentEtag);
}

/** `save quick-fix (edited)`, `save quick-fix: tighten the gate`, `save my-flow`, `restore quick-fix to 1a2b3c4`, `save role reviewer`, … */
export function subject(verb: Verb, what: string, opts: WriteOptions, state: string | null): string {
  if (opts.restoredFrom) return `restore ${what} to ${opts.restoredFrom}`;
  if (verb === 'save' && opts.proposal) return proposalSaveMessage(what, opts.proposal);
  // a note says why, which says more than the state
  if (verb === 'save' && opts.note) return `save ${what}: ${opts.note}`;
  // the state after a template save says what kind of copy it is; a custom template's is just `custom`
  return verb === 'save' && state && state !== 'custom' && !what.startsWith('role ') ? `save ${what} (${state})` : `${verb} ${what}`;
}

/**
 * `save quick-fix from proposal <id>` (`, with the operator's edits`), and the proposer as a
 * `Proposed-by:` trailer: a paragraph of its own, which the commit's `Who:` joins (history/commit-queue.ts).
 */
export function proposalSaveMessage(what: string, p: NonNullable<WriteOptions['proposal']>): string {
  const line = `save ${what} from proposal ${p.id}${p.edited ? ", with the operator's edits" : ''}`;
  // a proposer named by a request body on a desk that knows nobody is free text: one line of it
  const by = p.by?.replace(/[\r\n]+/g, ' ').trim();
  return by ? `${line}\n\nProposed-by: ${by}` : line;
}

/** An event's `who`: the person a write names, absent when it names none (docs/api.md, Events), as on a change found on disk. */
const whoOf = (opts: WriteOptions): { who?: string } => (opts.who ? { who: opts.who } : {});

export function libraryWrites(ctx: WriteContext): Writes {
  const { door, reads } = ctx;
  const facts = (name: string): TemplateFacts | null => reads.facts(name)?.facts ?? null;

  function refuseReadOnly(name: string): void {
    if (ctx.readOnly.has(name)) throw new DeskError('read_only', `${name} is registered read-only`);
  }

  function templatePreconditions(name: string, opts: WriteOptions, before: TemplateFacts | null): void {
    if (!ifMatchPasses(opts.ifMatch, before?.etag ?? null)) throw new DeskError('precondition_failed', `${name} changed since it was read`);
    if (!ifNoneMatchPasses(opts.ifNoneMatch, before?.etag ?? null)) throw new DeskError('precondition_failed', `${name} already exists`);
  }

  function rolePreconditions(name: string, opts: WriteOptions, before: RoleEntry | null): void {
    if (!ifMatchPasses(opts.ifMatch, before?.etag ?? null)) throw new DeskError('precondition_failed', `role ${name} changed since it was read`);
  }

  /** Steps 9–12 of a template write: `verb` names the commit, the log line and the event. */
  function afterTemplate(name: string, verb: Verb, before: TemplateFacts | null, opts: WriteOptions): After<TemplateDetail | null> {
    const after = verb === 'delete' ? null : reads.template(name, opts.card);
    if (verb !== 'delete' && !after) throw new DeskError('internal', `template ${name} is missing after a write`);
    const op = OP[verb];
    return {
      answer: after,
      subject: subject(verb, name, opts, after?.state ?? null),
      who: opts.who ?? null,
      log: { obj: { name, kind: 'template', op, before: before?.state ?? null, after: after?.state ?? null, who: opts.who ?? null }, msg: `template ${op}` },
      event: { type: 'template.changed', data: { name, state: after?.state ?? null, etag: after?.etag ?? null, ...whoOf(opts) } },
    };
  }

  function afterRole(name: string, verb: Verb, before: RoleEntry | null, opts: WriteOptions): After<RoleEntry | null> {
    const after = reads.role(name);
    if (verb !== 'delete' && !after) throw new DeskError('internal', `role ${name} is missing after ${verb}`);
    const op = OP[verb];
    return {
      answer: after,
      subject: subject(verb, `role ${name}`, opts, null),
      who: opts.who ?? null,
      log: { obj: { name, kind: 'role', op, before: before?.state ?? null, after: after?.state ?? null, who: opts.who ?? null }, msg: `role ${op}` },
      event: { type: 'role.changed', data: { name, state: after?.state ?? null, etag: after?.etag ?? null, ...whoOf(opts) } },
    };
  }

  /** A template write: what stands is its facts, its preconditions If-Match and If-None-Match, its ending a template answer. */
  function templateWrite(name: string, verb: Verb, opts: () => WriteOptions, own: Pick<Write<TemplateFacts | null, unknown>, 'refuse' | 'validate' | 'files'> & { state?(before: TemplateFacts | null): void }): Write<TemplateFacts | null, TemplateDetail | null> {
    return {
      unit: templateUnit(name),
      refuse: () => {
        refuseReadOnly(name);
        own.refuse?.();
      },
      validate: own.validate,
      standing: () => facts(name),
      preconditions: (before) => {
        templatePreconditions(name, opts(), before);
        own.state?.(before);
      },
      files: own.files,
      after: (before) => afterTemplate(name, verb, before, opts()),
    };
  }

  function roleWrite(name: string, verb: Verb, opts: () => WriteOptions, own: Pick<Write<RoleEntry | null, unknown>, 'refuse' | 'validate' | 'files'> & { state?(before: RoleEntry | null): void }): Write<RoleEntry | null, RoleEntry | null> {
    return {
      unit: roleUnit(name),
      refuse: own.refuse,
      validate: own.validate,
      standing: () => reads.role(name),
      preconditions: (before) => {
        rolePreconditions(name, opts(), before);
        own.state?.(before);
      },
      files: own.files,
      after: (before) => afterRole(name, verb, before, opts()),
    };
  }

  const notFound = (u: Unit) => (before: unknown) => {
    if (!before) throw new DeskError('not_found', `no ${u.kind} ${u.name}`);
  };

  return {
    async saveTemplate(name, source, given: WriteOptions = {}) {
      let opts = given;
      const bytes = Buffer.from(source, 'utf8');
      const hash = sha256Hex(bytes);
      const shipped = ctx.shipped.templates.get(name) ?? null;
      // a restore writes its version's own marker when that names an older shipped version: it reads shipped_changed_since, as it did
      const restoredMarker = shipped && given.restoredShipped && given.restoredShipped !== shipped.hash ? { shipped: given.restoredShipped, copy: hash } : undefined;
      const landed = () => {
        const now = reads.facts(name);
        return now !== null && now.facts.state !== 'shipped' && now.facts.hash === hash && (!shipped || now.marker?.copy === hash);
      };
      const write = templateWrite(name, 'save', () => opts, {
        refuse: () => {
          opts = { ...given, note: checkNote(given.note, 'template') };
        },
        validate: () => {
          // the text as it will read back from disk
          const v = reads.valid(name, bytes.toString('utf8'), hash);
          if (!v.valid) throw new DeskError('invalid_template', `${name} is not valid; nothing was saved`, { problems: v.problems });
        },
        files: (fs) => steps(() => writeTemplateSave(fs, name, source, shipped, restoredMarker), landed),
      });
      return (await door.run(write))!;
    },

    async resetTemplate(name, opts = {}) {
      const write = templateWrite(name, 'reset', () => opts, {
        refuse: () => {
          if (!ctx.shipped.templates.has(name)) throw new DeskError('not_shipped', `${name} is not a shipped template`);
        },
        files: (fs, before) => (before?.state === 'shipped' ? null : steps(() => writeTemplateReset(fs, name), () => facts(name)?.state === 'shipped')),
      });
      return (await door.run(write))!;
    },

    async acknowledgeTemplate(name, opts = {}) {
      const shipped = () => ctx.shipped.templates.get(name);
      const marker = () => reads.facts(name)?.marker ?? null;
      const write = templateWrite(name, 'acknowledge', () => opts, {
        state: (before) => {
          if (!before) throw new DeskError('not_found', `no template ${name}`);
          if (before.state !== 'shipped_changed_since' || !shipped() || !marker()) {
            throw new DeskError('state_conflict', `${name} is ${before.state}; only a copy whose shipped version changed since can be acknowledged`);
          }
        },
        // one atomic marker rewrite: no intent to resolve
        files: (fs) => ({ run: () => writeTemplateAcknowledge(fs, name, shipped()!, marker()!) }),
      });
      return (await door.run(write))!;
    },

    async deleteTemplate(name, opts = {}) {
      const write = templateWrite(name, 'delete', () => opts, {
        refuse: () => {
          if (ctx.shipped.templates.has(name)) throw new DeskError('not_custom', `${name} is shipped; reset it instead`);
        },
        state: notFound(templateUnit(name)),
        files: (fs) => steps(() => writeTemplateDelete(fs, name), () => facts(name) === null),
      });
      await door.run(write);
    },

    async saveRole(name, roleMd, kit, given: WriteOptions = {}) {
      let opts = given;
      let md = '';
      let kitText: string | null = null;
      const builtin = ctx.shipped.roles.get(name);
      const write = roleWrite(name, 'save', () => opts, {
        refuse: () => {
          opts = { ...given, note: checkNote(given.note, 'role') };
        },
        validate: () => {
          const problems = validateRoleMd(typeof roleMd === 'string' ? roleMd : null);
          const k = kit === null || kit === undefined ? null : validateKit(kit);
          if (k) problems.push(...k.problems);
          if (problems.length) throw new DeskError('invalid_role', `role ${name} is not valid; nothing was saved`, { problems });
          // canonical form (roles/canonical.ts): an unchanged built-in role saved reads same_as_shipped
          md = canonicalRoleMd(roleMd);
          kitText = k?.kit ? canonicalJson(k.kit) : null;
        },
        files: (fs) => {
          const revision = roleRevision(Buffer.from(md), kitText === null ? null : Buffer.from(kitText));
          const marker = builtin ? formatMarker({ shipped: builtin.revision, copy: revision }) : null;
          return steps(() => writeRoleSave(fs, name, { op: 'save', role_md: md, kit: kitText, marker }, builtin), () => reads.role(name)?.etag === etagOf(revision));
        },
      });
      return (await door.run(write))!;
    },

    async resetRole(name, opts = {}) {
      const write = roleWrite(name, 'reset', () => opts, {
        refuse: () => {
          if (!ctx.shipped.roles.has(name)) throw new DeskError('not_shipped', `${name} is not a built-in role`);
        },
        files: (fs, before) => (before?.state === 'shipped' ? null : steps(() => writeRoleReset(fs, name), () => reads.roleCopy(name).kind === 'missing')),
      });
      return (await door.run(write))!;
    },

    /**
     * A custom role. A built-in role's name is not_custom, as for templates:
     * the client resets it instead, so a delete never quietly turns into
     * "the built-in loads again". The file steps are a reset's: a redo
     * record, then the role's folder removed.
     */
    async deleteRole(name, opts = {}) {
      const write = roleWrite(name, 'delete', () => opts, {
        refuse: () => {
          if (ctx.shipped.roles.has(name)) throw new DeskError('not_custom', `${name} is a built-in role; reset it instead`);
        },
        state: notFound(roleUnit(name)),
        files: (fs) => steps(() => writeRoleReset(fs, name), () => reads.role(name) === null),
      });
      await door.run(write);
    },
  };
}

/** The shipped bytes a template copy was saved against, or null when none is kept. */
export async function keptBase(ctx: LibraryContext, name: string): Promise<string | null> {
  checkTemplateName(name);
  if (!ctx.fs || !ctx.shipped.templates.has(name)) return null;
  const r = readFacts(ctx, name);
  if (!r || r.facts.state === 'shipped' || !r.marker) return null;
  return readKeptBase(ctx.fs, r.marker.shipped);
}
