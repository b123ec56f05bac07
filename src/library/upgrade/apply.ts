/**
 * The upgrade's apply (docs/operations.md, Upgrading): the `reset` and
 * `clean` copies of the plan moved onto today's shipped versions, each with
 * a save's guarantees, and the whole upgrade one history entry and one
 * event.
 *
 * Each name goes through the write pipeline's slot (writes.ts, "One write"):
 * a change made on disk without the service is committed first, a left
 * intent finished, the name planned again on what loads now, If-Match
 * checked, the files written (templates/files.ts, roles/files.ts: intent,
 * atomic files, marker — a kill -9 leaves each copy upgraded or as it was).
 * A clean template's files are batched (batch.ts): prepared in its slot,
 * landed with the others once every slot is held, so the folder is flushed
 * a few times for the whole upgrade rather than twice per copy.
 * The slots are taken one inside the other in name order and held until the
 * one commit is queued, so no other write of these names can come between a
 * copy's files and the commit that holds them (it would find them "on
 * disk"). Every multi-name holder takes them in that order, one at a time
 * otherwise, so none waits on another. A kill before the commit is queued
 * leaves the upgrade's journal (journal.ts), and the next start commits the
 * one entry from it.
 */
import { DeskError, isDeskError } from '../../errors.js';
import type { LibraryContext, WriteGuard } from '../context.js';
import { type FsContext, lstatSyncOrNull, safeDirSync } from '../disk/fs-safe.js';
import { templateIntentFile } from '../disk/intents.js';
import { ifMatchPasses } from '../disk/markers.js';
import { recoverRole, recoverTemplate } from '../disk/recovery.js';
import type { EventBus } from '../events/bus.js';
import type { Recorder } from '../history/recorder.js';
import { checkRoleName, checkTemplateName, keptBase, keptRoleBase, rel, rolePaths, TEMPLATES, templatePaths } from '../layout.js';
import { readRoleCopy } from '../roles/copy.js';
import { roleEntry } from '../roles/entries.js';
import { writeRoleReset, writeRoleSave } from '../roles/files.js';
import { writeTemplateReset } from '../templates/files.js';
import { readFacts } from '../templates/read.js';
import type { UpgradeRequestBody, UpgradeResultAnswer } from '../../schema/upgrade.js';
import { landSaves, type Prepared, prepareSave } from './batch.js';
import { clearUpgrade, markerShipped, newBase, saveUpgrade, type UpgradeJournal } from './journal.js';
import { AUTOMATIC, type PlannedTemplate, planRole, planTemplate, planUpgrade, type UpgradeOutcome } from './plan.js';

export type UpgradeKind = 'template' | 'role';
/** Which copies to upgrade: none listed (`{}`) means every `reset` and `clean` copy of the plan. */
export type UpgradeRequest = UpgradeRequestBody;
export type UpgradeResult = UpgradeResultAnswer;
type UpgradeApplied = UpgradeResult['applied'][number];
/** `outcome` null: the name is not behind at all; `code` why it was refused, when it was. */
type UpgradeSkipped = UpgradeResult['skipped'][number];

export interface UpgradeDeps {
  ctx: LibraryContext;
  guard: WriteGuard;
  recorder: Recorder;
  events: EventBus;
}

interface Target {
  kind: UpgradeKind;
  name: string;
  ifMatch?: string;
  /** the plan `{}` chose it from: its merge is reused while the copy is the same (plan.ts planRead) */
  planned?: PlannedTemplate;
}

const NEEDS_A_PERSON: Record<Exclude<UpgradeOutcome, 'reset' | 'clean'>, string> = {
  conflicts: 'the merge has conflicts: rebase it by hand',
  invalid: 'the merge does not validate: rebase it by hand',
  no_kept_base: 'the shipped version it was saved against is not kept: reset or acknowledge it',
};

/** `upgrade 5 copies to the shipped templates` */
export function upgradeSubject(n: number): string {
  return `upgrade ${n} ${n === 1 ? 'copy' : 'copies'} to the shipped templates`;
}

/** The names asked for, each once, in slot order (templates, then roles, by name). */
async function targetsOf(deps: UpgradeDeps, request: UpgradeRequest, skipped: UpgradeSkipped[]): Promise<Target[]> {
  if (request.templates === undefined && request.roles === undefined) {
    const plan = await planUpgrade(deps.ctx);
    const out: Target[] = [];
    for (const [kind, list] of [['template', plan.templates], ['role', plan.roles]] as const) {
      for (const p of list) {
        if (AUTOMATIC.has(p.outcome)) out.push(kind === 'template' ? { kind, name: p.name, planned: p as PlannedTemplate } : { kind, name: p.name });
        else skipped.push({ name: p.name, kind, outcome: p.outcome, reason: NEEDS_A_PERSON[p.outcome as keyof typeof NEEDS_A_PERSON] });
      }
    }
    return out;
  }
  const seen = new Map<string, Target>();
  for (const t of request.templates ?? []) {
    checkTemplateName(t.name);
    seen.set(`template:${t.name}`, { kind: 'template', name: t.name, ...(t.if_match !== undefined ? { ifMatch: t.if_match } : {}) });
  }
  for (const r of request.roles ?? []) {
    checkRoleName(r.name);
    seen.set(`role:${r.name}`, { kind: 'role', name: r.name, ...(r.if_match !== undefined ? { ifMatch: r.if_match } : {}) });
  }
  const order = (t: Target) => `${t.kind === 'template' ? 0 : 1}:${t.name}`;
  return [...seen.values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/** Why a name is not in the plan at all. */
function notBehind(ctx: LibraryContext, t: Target): UpgradeSkipped {
  const base = { name: t.name, kind: t.kind, outcome: null };
  if (t.kind === 'template' && ctx.readOnly.has(t.name)) return { ...base, code: 'read_only', reason: `${t.name} is registered read-only` };
  if (ctx.diverged[t.kind === 'template' ? 'templates' : 'roles'].has(t.name)) return { ...base, code: 'state_conflict', reason: `${t.name} is diverged: settle the sync first` };
  return { ...base, code: 'state_conflict', reason: `${t.name} is not behind the shipped version` };
}

/**
 * Runs a copy's file steps; if one fails, the name's intent is resolved and
 * what is on disk decides, as a save's (writes.ts settle).
 */
async function settle(steps: () => Promise<unknown>, recover: () => Promise<unknown>, landed: () => boolean): Promise<void> {
  try {
    await steps();
  } catch (e) {
    await recover().catch(() => {});
    if (landed()) return;
    throw e;
  }
}

/** Whether a template's intent is on disk (recovery.ts looks again). */
function intentLeft(fs: FsContext, name: string): boolean {
  const dir = safeDirSync(fs, [TEMPLATES])?.dir;
  return dir !== undefined && lstatSyncOrNull(`${dir}/${templateIntentFile(name)}`) !== null;
}

type Done = { applied: UpgradeApplied; paths: string[] };
/** A clean template whose files are prepared (batch.ts): applied or skipped once the batch lands. */
type Pending = { prepared: Prepared; paths: string[] };

/** The answer for a template whose files are written. */
function appliedTemplate(ctx: LibraryContext, name: string, paths: string[]): Done {
  const after = readFacts(ctx, name);
  if (!after) throw new DeskError('internal', `template ${name} is missing after its upgrade`);
  return { applied: { name, kind: 'template', state: after.facts.state, etag: after.facts.etag }, paths };
}

/** One name, inside its slot: the root-relative paths it wrote, a clean template's prepared files, or a skip. */
async function upgradeOne(deps: UpgradeDeps, fs: FsContext, t: Target): Promise<Done | Pending | UpgradeSkipped> {
  const { ctx, recorder } = deps;
  const skip = (outcome: UpgradeOutcome | null, code: string | undefined, reason: string): UpgradeSkipped => ({ name: t.name, kind: t.kind, outcome, ...(code ? { code } : {}), reason });
  if (t.kind === 'template') {
    // standing (writes.ts): what changed on disk without the service is committed on its own, a left intent finished
    if (!ctx.diverged.templates.has(t.name)) recorder.found(`template:${t.name}`);
    // looked for synchronously: an async look would queue behind the batch's flushes (batch.ts)
    if (intentLeft(fs, t.name)) await recoverTemplate(fs, t.name);
    const p = await planTemplate(ctx, t.name, undefined, t.planned);
    if (!p) return notBehind(ctx, t);
    if (!ifMatchPasses(t.ifMatch, p.etag)) return skip(p.outcome, 'precondition_failed', `${t.name} changed since it was read`);
    if (!AUTOMATIC.has(p.outcome)) return skip(p.outcome, undefined, NEEDS_A_PERSON[p.outcome as keyof typeof NEEDS_A_PERSON]);
    const shipped = ctx.shipped.templates.get(t.name)!;
    const paths: string[] = [...templatePaths(t.name)];
    if (p.outcome === 'reset') {
      await settle(() => writeTemplateReset(fs, t.name), () => recoverTemplate(fs, t.name), () => readFacts(ctx, t.name)?.facts.state === 'shipped');
      return appliedTemplate(ctx, t.name, paths);
    }
    // its flushes run on while the next names are planned; the batch lands once every slot is held
    return { prepared: prepareSave(fs, t.name, p.merged!, shipped), paths: [...paths, rel(keptBase(shipped.hash))] };
  }
  if (!ctx.diverged.roles.has(t.name)) recorder.found(`role:${t.name}`);
  await recoverRole(fs, t.name);
  const p = await planRole(ctx, t.name);
  if (!p) return notBehind(ctx, t);
  if (!ifMatchPasses(t.ifMatch, p.etag)) return skip(p.outcome, 'precondition_failed', `role ${t.name} changed since it was read`);
  if (!AUTOMATIC.has(p.outcome)) return skip(p.outcome, undefined, NEEDS_A_PERSON[p.outcome as keyof typeof NEEDS_A_PERSON]);
  const builtin = ctx.shipped.roles.get(t.name)!;
  if (p.outcome === 'reset') {
    await settle(() => writeRoleReset(fs, t.name), () => recoverRole(fs, t.name), () => readRoleCopy(ctx, t.name).kind === 'missing');
  } else {
    const m = p.merged!;
    const landed = () => {
      const c = readRoleCopy(ctx, t.name);
      return c.kind === 'folder' && c.roleMd.kind === 'file' && c.roleMd.text === m.role_md;
    };
    await settle(() => writeRoleSave(fs, t.name, { op: 'save', role_md: m.role_md, kit: m.kit, marker: m.marker }, builtin), () => recoverRole(fs, t.name), landed);
  }
  const after = roleEntry(ctx, t.name);
  if (!after) throw new DeskError('internal', `role ${t.name} is missing after its upgrade`);
  // a merge stands on the built-in's kept base, written with it: in the upgrade's commit, as a template's is
  const base = p.outcome === 'reset' ? [] : [rel(keptRoleBase(builtin.revision))];
  return { applied: { name: t.name, kind: 'role', state: after.state, etag: after.etag }, paths: [...rolePaths(t.name), ...base] };
}

/** One copy that cannot be written is skipped with its code; the others go on. */
function failedSkip(ctx: LibraryContext, t: Target, e: unknown): UpgradeSkipped {
  const code = isDeskError(e) ? e.code : 'internal';
  ctx.logger.warn({ name: t.name, kind: t.kind, code }, 'upgrade: a copy could not be written');
  return { name: t.name, kind: t.kind, outcome: null, code, reason: (e as Error).message };
}

/** The journal's line for a target (journal.ts): what its marker names now, and the shipped version it moves onto. */
function journalLine(ctx: LibraryContext, fs: FsContext, t: Target): UpgradeJournal['names'][number] | null {
  const to = t.kind === 'template' ? ctx.shipped.templates.get(t.name)?.hash : ctx.shipped.roles.get(t.name)?.revision;
  return to === undefined ? null : { kind: t.kind, name: t.name, from: markerShipped(fs, t.kind, t.name), to, base: newBase(fs, t.kind, to) };
}

/**
 * The upgrade: every named copy (or every automatic one), one commit, one
 * event. One upgrade at a time (a slot of its own, taken before any name's):
 * the journal is one file.
 */
export async function applyUpgrade(deps: UpgradeDeps, request: UpgradeRequest, who: string | null = null): Promise<UpgradeResult> {
  const fs = deps.guard.writable();
  return deps.guard.queue.run('upgrade:', () => applyOne(deps, fs, request, who));
}

async function applyOne(deps: UpgradeDeps, fs: FsContext, request: UpgradeRequest, who: string | null): Promise<UpgradeResult> {
  const { ctx, guard, recorder, events } = deps;
  const skipped: UpgradeSkipped[] = [];
  const targets = await targetsOf(deps, request, skipped);
  /** each target's result, in target order */
  const results: (Done | Pending | UpgradeSkipped | undefined)[] = [];
  if (targets.length === 0) return { applied: [], skipped };
  // before the first file: a kill between the files and the commit leaves the next start this entry to finish
  await saveUpgrade(fs, { names: targets.map((t) => journalLine(ctx, fs, t)).filter((l) => l !== null), who });

  /** The prepared templates landed together; each one that failed is settled from what its intent and the disk say. */
  const land = async () => {
    const pending = results.flatMap((r, i) => (r && 'prepared' in r ? [[i, r] as const] : []));
    const failed = await landSaves(fs, pending.map(([, r]) => r.prepared));
    for (const [i, r] of pending) {
      const t = targets[i]!;
      try {
        const why = failed.get(t.name);
        if (failed.has(t.name)) {
          const shipped = ctx.shipped.templates.get(t.name)!;
          await settle(() => Promise.reject(why), () => recoverTemplate(fs, t.name), () => readFacts(ctx, t.name)?.marker?.shipped === shipped.hash);
        }
        results[i] = appliedTemplate(ctx, t.name, r.paths);
      } catch (e) {
        results[i] = failedSkip(ctx, t, e);
      }
    }
  };

  /** Takes target i's slot, upgrades it, and goes on to the next inside it; the last one lands the batch and records. */
  const step = async (i: number): Promise<void> => {
    if (i === targets.length) {
      await land();
      const done = results.filter((r): r is Done => r !== undefined && 'applied' in r);
      if (done.length) {
        recorder.recordPaths([...new Set(done.flatMap((r) => r.paths))], upgradeSubject(done.length), who);
        const nSkipped = skipped.length + results.filter((r) => r !== undefined && !('applied' in r)).length;
        ctx.logger.info({ op: 'upgraded', applied: done.length, skipped: nSkipped, who }, 'library upgraded');
        const names = done.map((a) => `${a.applied.kind}:${a.applied.name}`);
        events.publish('library.upgraded', { applied: done.length, skipped: nSkipped, names: names.slice(0, 100), ...(who ? { who } : {}) });
      }
      // the commit is queued (and kept across a crash): the journal has done its part
      await clearUpgrade(fs);
      return;
    }
    const t = targets[i]!;
    await guard.queue.run(`${t.kind}:${t.name}`, async () => {
      try {
        results[i] = await upgradeOne(deps, fs, t);
      } catch (e) {
        results[i] = failedSkip(ctx, t, e);
      }
      await step(i + 1);
    });
  };
  await step(0);
  const applied: UpgradeApplied[] = [];
  for (const r of results) {
    if (r && 'applied' in r) applied.push(r.applied);
    else if (r && !('prepared' in r)) skipped.push(r);
  }
  return { applied, skipped };
}
