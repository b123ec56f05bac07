import { DeskError } from '../errors.js';
import type { LibraryContext, WriteGuard } from './context.js';
import type { FsContext } from './disk/fs-safe.js';
import { etagOf, formatMarker, ifMatchPasses, roleRevision, sha256Hex } from './disk/markers.js';
import { recoverRole, recoverTemplate } from './disk/recovery.js';
import type { EventBus } from './events/bus.js';
import type { Recorder } from './history/recorder.js';
import { checkRoleName, checkTemplateName } from './layout.js';
import { pointLook } from './look.js';
import { canonicalJson, canonicalRoleMd } from './roles/canonical.js';
import { readRoleCopy } from './roles/copy.js';
import { roleEntry } from './roles/entries.js';
import { writeRoleReset, writeRoleSave } from './roles/files.js';
import { validateKit, validateRoleMd } from './roles/validate.js';
import { checkNote } from './templates/note.js';
import { readKeptBase, writeTemplateAcknowledge, writeTemplateDelete, writeTemplateReset, writeTemplateSave } from './templates/files.js';
import { getTemplate, readFacts } from './templates/read.js';
import type { Library, RoleEntry, TemplateDetail, TemplateFacts, WriteOptions } from './types.js';

/**
 * Every write of a template or a role through the service, one function
 * each (docs/history.md, "One write"). Each reads top to bottom:
 *
 * 1. the name, checked before any path is built from it, and the refusals
 *    that need no file (read-only, no root, not shipped, not custom);
 * 2. the body validated — before the slot, so an invalid body is 422
 *    whatever the preconditions say (docs/api.md);
 * 3. the name's slot in the queue: one write of a name at a time;
 * 4. inside it, `standing`: a change made on disk without the service is
 *    committed first (`found on disk: …`), an intent a crash left is
 *    finished, and what loads now is read;
 * 5. the preconditions (If-Match, If-None-Match) against what loads now;
 * 6. the files written: intent, atomic files, marker (templates/files.ts,
 *    roles/files.ts);
 * 7. `landed`: a name a sync left diverged is settled by this write, the
 *    history commit is queued with the bytes just written (the answer never
 *    waits for git), one log line, the event announced;
 * 8. the answer.
 *
 * A sync round's per-name step takes the same slots (history/sync-files.ts).
 */

export interface WriteDeps {
  ctx: LibraryContext;
  guard: WriteGuard;
  recorder: Recorder;
  events: EventBus;
  /** a write through the service settles a name a sync left diverged: the operator chose (history/sync-files.ts) */
  settleDiverged(kind: 'templates' | 'roles', name: string): void;
}

export type Writes = Pick<Library, 'saveTemplate' | 'resetTemplate' | 'acknowledgeTemplate' | 'deleteTemplate' | 'saveRole' | 'resetRole' | 'deleteRole'>;

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

/**
 * Runs a write's file steps. If one fails, the name's intent is resolved
 * straight away and the answer follows what is now on disk: a write that
 * passed its commit point succeeded (the rest is finished here or at the next
 * start), one that did not changed nothing and reports the failure.
 */
async function settle(ctx: LibraryContext, name: string, steps: () => Promise<unknown>, recover: () => Promise<unknown>, landed: () => Promise<boolean> | boolean): Promise<void> {
  try {
    await steps();
  } catch (e) {
    await recover().catch(() => {});
    if (await Promise.resolve().then(landed).catch(() => false)) {
      ctx.logger.warn({ name, code: (e as { code?: string }).code }, 'write landed; its last steps finish at the next start');
      return;
    }
    throw e;
  }
}

/** `save quick-fix (edited)`, `save quick-fix: tighten the gate`, `save my-flow`, `restore quick-fix to 1a2b3c4`, `save role reviewer`, … */
export function subject(verb: 'save' | 'reset' | 'acknowledge' | 'delete', what: string, opts: WriteOptions, state: string | null): string {
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

export function libraryWrites({ ctx, guard, recorder, events, settleDiverged }: WriteDeps): Writes {
  const facts = (name: string): TemplateFacts | null => readFacts(ctx, name)?.facts ?? null;

  /** Step 4 for a template: found-on-disk committed, a left intent finished, what loads now. */
  async function standingTemplate(fs: FsContext, name: string): Promise<TemplateFacts | null> {
    // a diverged name's copy differs from HEAD (which holds the remote's version) until this write decides it
    if (!ctx.diverged.templates.has(name)) recorder.found(`template:${name}`);
    await recoverTemplate(fs, name);
    return facts(name);
  }

  function templatePreconditions(name: string, opts: WriteOptions, before: TemplateFacts | null): void {
    if (!ifMatchPasses(opts.ifMatch, before?.etag ?? null)) throw new DeskError('precondition_failed', `${name} changed since it was read`);
    if (!ifNoneMatchPasses(opts.ifNoneMatch, before?.etag ?? null)) throw new DeskError('precondition_failed', `${name} already exists`);
  }

  /** Step 7 and 8 for a template; `verb` names the commit, `op` the log line. */
  function landedTemplate(name: string, verb: 'save' | 'reset' | 'acknowledge' | 'delete', before: TemplateFacts | null, opts: WriteOptions): TemplateDetail | null {
    if (ctx.diverged.templates.has(name)) settleDiverged('templates', name);
    const after = verb === 'delete' ? null : getTemplate(ctx, name, opts.card);
    if (verb !== 'delete' && !after) throw new DeskError('internal', `template ${name} is missing after a write`);
    recorder.record(`template:${name}`, subject(verb, name, opts, after?.state ?? null), opts.who ?? null);
    const op = verb === 'save' ? 'saved' : verb === 'reset' ? 'reset' : verb === 'delete' ? 'deleted' : 'acknowledged';
    ctx.logger.info({ name, kind: 'template', op, before: before?.state ?? null, after: after?.state ?? null, who: opts.who ?? null }, `template ${op}`);
    events.publish('template.changed', { name, state: after?.state ?? null, etag: after?.etag ?? null, ...whoOf(opts) });
    return after;
  }

  function refuseReadOnly(name: string): void {
    if (ctx.readOnly.has(name)) throw new DeskError('read_only', `${name} is registered read-only`);
  }

  /** Step 4 for a role. */
  async function standingRole(fs: FsContext, name: string): Promise<RoleEntry | null> {
    if (!ctx.diverged.roles.has(name)) recorder.found(`role:${name}`);
    await recoverRole(fs, name);
    return roleEntry(ctx, name);
  }

  function rolePreconditions(name: string, opts: WriteOptions, before: RoleEntry | null): void {
    if (!ifMatchPasses(opts.ifMatch, before?.etag ?? null)) throw new DeskError('precondition_failed', `role ${name} changed since it was read`);
  }

  function landedRole(name: string, verb: 'save' | 'reset' | 'delete', before: RoleEntry | null, opts: WriteOptions): RoleEntry | null {
    if (ctx.diverged.roles.has(name)) settleDiverged('roles', name);
    const after = roleEntry(ctx, name);
    if (verb !== 'delete' && !after) throw new DeskError('internal', `role ${name} is missing after ${verb}`);
    recorder.record(`role:${name}`, subject(verb, `role ${name}`, opts, null), opts.who ?? null);
    const op = verb === 'save' ? 'saved' : verb === 'reset' ? 'reset' : 'deleted';
    ctx.logger.info({ name, kind: 'role', op, before: before?.state ?? null, after: after?.state ?? null, who: opts.who ?? null }, `role ${op}`);
    events.publish('role.changed', { name, state: after?.state ?? null, etag: after?.etag ?? null, ...whoOf(opts) });
    return after;
  }

  return {
    async saveTemplate(name, source, given: WriteOptions = {}) {
      checkTemplateName(name);
      refuseReadOnly(name);
      const opts = { ...given, note: checkNote(given.note, 'template') };
      const fs = guard.writable();
      const bytes = Buffer.from(source, 'utf8');
      const hash = sha256Hex(bytes);
      // the text as it will read back from disk, memoised: the answer after the save takes it from the memo
      const v = ctx.memo.whole(name, bytes.toString('utf8'), hash, pointLook(ctx)).validation;
      if (!v.valid) throw new DeskError('invalid_template', `${name} is not valid; nothing was saved`, { problems: v.problems });
      return guard.queue.run(`template:${name}`, async () => {
        const before = await standingTemplate(fs, name);
        templatePreconditions(name, opts, before);
        const shipped = ctx.shipped.templates.get(name) ?? null;
        const landed = () => {
          const now = readFacts(ctx, name);
          return now !== null && now.facts.state !== 'shipped' && now.facts.hash === hash && (!shipped || now.marker?.copy === hash);
        };
        // a restore writes its version's own marker when that names an older shipped version: it reads shipped_changed_since, as it did
        const kept = shipped && opts.restoredShipped && opts.restoredShipped !== shipped.hash ? { shipped: opts.restoredShipped, copy: hash } : undefined;
        await settle(ctx, name, () => writeTemplateSave(fs, name, source, shipped, kept), () => recoverTemplate(fs, name), landed);
        return landedTemplate(name, 'save', before, opts)!;
      });
    },

    async resetTemplate(name, opts = {}) {
      checkTemplateName(name);
      refuseReadOnly(name);
      const fs = guard.writable();
      if (!ctx.shipped.templates.has(name)) throw new DeskError('not_shipped', `${name} is not a shipped template`);
      return guard.queue.run(`template:${name}`, async () => {
        const before = await standingTemplate(fs, name);
        templatePreconditions(name, opts, before);
        if (before?.state !== 'shipped') {
          await settle(ctx, name, () => writeTemplateReset(fs, name), () => recoverTemplate(fs, name), () => facts(name)?.state === 'shipped');
        }
        return landedTemplate(name, 'reset', before, opts)!;
      });
    },

    async acknowledgeTemplate(name, opts = {}) {
      checkTemplateName(name);
      refuseReadOnly(name);
      const fs = guard.writable();
      return guard.queue.run(`template:${name}`, async () => {
        const before = await standingTemplate(fs, name);
        templatePreconditions(name, opts, before);
        if (!before) throw new DeskError('not_found', `no template ${name}`);
        const shipped = ctx.shipped.templates.get(name);
        const marker = readFacts(ctx, name)?.marker ?? null;
        if (before.state !== 'shipped_changed_since' || !shipped || !marker) {
          throw new DeskError('state_conflict', `${name} is ${before.state}; only a copy whose shipped version changed since can be acknowledged`);
        }
        await writeTemplateAcknowledge(fs, name, shipped, marker);
        return landedTemplate(name, 'acknowledge', before, opts)!;
      });
    },

    async deleteTemplate(name, opts = {}) {
      checkTemplateName(name);
      refuseReadOnly(name);
      const fs = guard.writable();
      if (ctx.shipped.templates.has(name)) throw new DeskError('not_custom', `${name} is shipped; reset it instead`);
      await guard.queue.run(`template:${name}`, async () => {
        const before = await standingTemplate(fs, name);
        templatePreconditions(name, opts, before);
        if (!before) throw new DeskError('not_found', `no template ${name}`);
        await settle(ctx, name, () => writeTemplateDelete(fs, name), () => Promise.resolve(), () => facts(name) === null);
        landedTemplate(name, 'delete', before, opts);
      });
    },

    async saveRole(name, roleMd, kit, given: WriteOptions = {}) {
      checkRoleName(name);
      const opts = { ...given, note: checkNote(given.note, 'role') };
      const fs = guard.writable();
      const problems = validateRoleMd(typeof roleMd === 'string' ? roleMd : null);
      const k = kit === null || kit === undefined ? null : validateKit(kit);
      if (k) problems.push(...k.problems);
      if (problems.length) throw new DeskError('invalid_role', `role ${name} is not valid; nothing was saved`, { problems });
      // canonical form (roles/canonical.ts): an unchanged built-in role saved reads same_as_shipped
      const md = canonicalRoleMd(roleMd);
      const kitText = k?.kit ? canonicalJson(k.kit) : null;
      return guard.queue.run(`role:${name}`, async () => {
        const before = await standingRole(fs, name);
        rolePreconditions(name, opts, before);
        const builtin = ctx.shipped.roles.get(name);
        const revision = roleRevision(Buffer.from(md), kitText === null ? null : Buffer.from(kitText));
        const marker = builtin ? formatMarker({ shipped: builtin.revision, copy: revision }) : null;
        const landed = () => roleEntry(ctx, name)?.etag === etagOf(revision);
        await settle(ctx, name, () => writeRoleSave(fs, name, { op: 'save', role_md: md, kit: kitText, marker }, builtin), () => recoverRole(fs, name), landed);
        return landedRole(name, 'save', before, opts)!;
      });
    },

    async resetRole(name, opts = {}) {
      checkRoleName(name);
      const fs = guard.writable();
      if (!ctx.shipped.roles.has(name)) throw new DeskError('not_shipped', `${name} is not a built-in role`);
      return guard.queue.run(`role:${name}`, async () => {
        const before = await standingRole(fs, name);
        rolePreconditions(name, opts, before);
        if (before?.state !== 'shipped') {
          await settle(ctx, name, () => writeRoleReset(fs, name), () => recoverRole(fs, name), () => readRoleCopy(ctx, name).kind === 'missing');
        }
        return landedRole(name, 'reset', before, opts)!;
      });
    },

    /**
     * A custom role. A built-in role's name is not_custom, as for templates:
     * the client resets it instead, so a delete never quietly turns into
     * "the built-in loads again". The file steps are a reset's: a redo
     * record, then the role's folder removed.
     */
    async deleteRole(name, opts = {}) {
      checkRoleName(name);
      if (ctx.shipped.roles.has(name)) throw new DeskError('not_custom', `${name} is a built-in role; reset it instead`);
      const fs = guard.writable();
      await guard.queue.run(`role:${name}`, async () => {
        const before = await standingRole(fs, name);
        rolePreconditions(name, opts, before);
        if (!before) throw new DeskError('not_found', `no role ${name}`);
        await settle(ctx, name, () => writeRoleReset(fs, name), () => recoverRole(fs, name), () => roleEntry(ctx, name) === null);
        landedRole(name, 'delete', before, opts);
      });
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
