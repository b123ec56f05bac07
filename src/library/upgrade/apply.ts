/**
 * The upgrade's apply (docs/operations.md, Upgrading): the `reset` and
 * `clean` copies of the plan moved onto today's shipped versions, each with
 * a save's guarantees, and the whole upgrade one history entry and one
 * event.
 *
 * Each name goes through the one door (door.ts) with its slot held: a
 * change made on disk without the service is committed first, a left intent
 * finished, the name planned again on what loads now, If-Match checked, the
 * files written (templates/files.ts, roles/files.ts: intent, atomic files,
 * marker — a kill -9 leaves each copy upgraded or as it was). Its switches:
 * no commit, log line or event of its own — the upgrade makes one of each.
 * A clean template's files are a save's split in two (templates/files.ts
 * prepareSave, landSaves): prepared in its slot, landed with the others once
 * every slot is held, so the folder is flushed a few times for the whole
 * upgrade rather than twice per copy.
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
import type { FsContext } from '../disk/fs-safe.js';
import { ifMatchPasses } from '../disk/markers.js';
import { type Door, type DoorSwitches, fileSteps as steps, type Write } from '../door.js';
import type { EventBus } from '../events/bus.js';
import type { Recorder } from '../history/recorder.js';
import { checkRoleName, checkTemplateName, keptBase, keptRoleBase, rel, rolePaths, templatePaths } from '../layout.js';
import { readRoleCopy } from '../role-copy.js';
import { roleEntry } from '../roles/entries.js';
import { writeRoleReset, writeRoleSave } from '../roles/files.js';
import { landSaves, type Prepared, prepareSave, writeTemplateReset } from '../templates/files.js';
import { readFacts } from '../templates/read.js';
import type { UpgradeRequestBody, UpgradeResultAnswer } from '../../schema/upgrade.js';
import { folderOf, type Unit, type UnitKind, unitKey } from '../unit.js';
import { clearUpgrade, markerShipped, newBase, saveUpgrade, type UpgradeJournal } from './journal.js';
import { AUTOMATIC, type PlannedTemplate, planRole, planTemplate, planUpgrade, type UpgradeOutcome } from './plan.js';

export type UpgradeKind = UnitKind;
/** Which copies to upgrade: none listed (`{}`) means every `reset` and `clean` copy of the plan. */
export type UpgradeRequest = UpgradeRequestBody;
export type UpgradeResult = UpgradeResultAnswer;
type UpgradeApplied = UpgradeResult['applied'][number];
/** `outcome` null: the name is not behind at all; `code` why it was refused, when it was. */
type UpgradeSkipped = UpgradeResult['skipped'][number];

export interface UpgradeDeps {
  ctx: LibraryContext;
  /** the upgrade's own slot (one at a time) and the root */
  guard: WriteGuard;
  door: Door;
  recorder: Recorder;
  events: EventBus;
}

interface Target extends Unit {
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
    seen.set(unitKey({ kind: 'template', name: t.name }), { kind: 'template', name: t.name, ...(t.if_match !== undefined ? { ifMatch: t.if_match } : {}) });
  }
  for (const r of request.roles ?? []) {
    checkRoleName(r.name);
    seen.set(unitKey({ kind: 'role', name: r.name }), { kind: 'role', name: r.name, ...(r.if_match !== undefined ? { ifMatch: r.if_match } : {}) });
  }
  const order = (t: Target) => `${t.kind === 'template' ? 0 : 1}:${t.name}`;
  return [...seen.values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/** Why a name is not in the plan at all. */
function notBehind(ctx: LibraryContext, t: Target): UpgradeSkipped {
  const base = { name: t.name, kind: t.kind, outcome: null };
  if (t.kind === 'template' && ctx.readOnly.has(t.name)) return { ...base, code: 'read_only', reason: `${t.name} is registered read-only` };
  if (ctx.diverged[folderOf(t.kind)].has(t.name)) return { ...base, code: 'state_conflict', reason: `${t.name} is diverged: settle the sync first` };
  return { ...base, code: 'state_conflict', reason: `${t.name} is not behind the shipped version` };
}

type Done = { applied: UpgradeApplied; paths: string[] };
/** A clean template whose files are prepared: applied or skipped once the batch lands. */
type Pending = { prepared: Prepared; paths: string[] };

/** A name the upgrade leaves as it is, thrown from its preconditions (step 6). */
class Skip extends Error {
  constructor(readonly skipped: UpgradeSkipped) {
    super(skipped.reason);
  }
}

/**
 * The door's switches for an upgrade's step: its slot is held already, and
 * the upgrade makes one commit, one log line and one event for all its names.
 */
const STEP: DoorSwitches = { slot: 'held', commit: 'later', announce: false };

/** The answer for a template whose files are written. */
function appliedTemplate(ctx: LibraryContext, name: string, paths: string[]): Done {
  const after = readFacts(ctx, name);
  if (!after) throw new DeskError('internal', `template ${name} is missing after its upgrade`);
  return { applied: { name, kind: 'template', state: after.facts.state, etag: after.facts.etag }, paths };
}

/** One template, inside its held slot: applied, its files prepared for the batch, or skipped. */
function templateStep(deps: UpgradeDeps, t: Target): Write<Awaited<ReturnType<typeof planTemplate>>, Done | Pending> {
  const { ctx } = deps;
  const shipped = () => ctx.shipped.templates.get(t.name)!;
  let prepared: Prepared | null = null;
  return {
    unit: t,
    standing: () => planTemplate(ctx, t.name, undefined, t.planned),
    preconditions: (p) => refusal(ctx, t, p, `${t.name} changed since it was read`),
    files: (fs, p) =>
      p!.outcome === 'reset'
        ? steps(() => writeTemplateReset(fs, t.name), () => readFacts(ctx, t.name)?.facts.state === 'shipped')
        : // its flushes run on while the next names are planned; the batch lands once every slot is held
          {
            run: async () => {
              prepared = prepareSave(fs, t.name, p!.merged!, shipped());
            },
          },
    after: () => {
      const paths = [...templatePaths(t.name)];
      return { subject: null, who: null, answer: prepared ? { prepared, paths: [...paths, rel(keptBase(shipped().hash))] } : appliedTemplate(ctx, t.name, paths) };
    },
  };
}

/** One role, inside its held slot. */
function roleStep(deps: UpgradeDeps, t: Target): Write<Awaited<ReturnType<typeof planRole>>, Done> {
  const { ctx } = deps;
  const builtin = () => ctx.shipped.roles.get(t.name)!;
  return {
    unit: t,
    standing: () => planRole(ctx, t.name),
    preconditions: (p) => refusal(ctx, t, p, `role ${t.name} changed since it was read`),
    files: (fs, p) => {
      if (p!.outcome === 'reset') return steps(() => writeRoleReset(fs, t.name), () => readRoleCopy(ctx, t.name).kind === 'missing');
      const m = p!.merged!;
      const landed = () => {
        const c = readRoleCopy(ctx, t.name);
        return c.kind === 'folder' && c.roleMd.kind === 'file' && c.roleMd.text === m.role_md;
      };
      return steps(() => writeRoleSave(fs, t.name, { op: 'save', role_md: m.role_md, kit: m.kit, marker: m.marker }, builtin()), landed);
    },
    after: (p) => {
      const after = roleEntry(ctx, t.name);
      if (!after) throw new DeskError('internal', `role ${t.name} is missing after its upgrade`);
      // a merge stands on the built-in's kept base, written with it: in the upgrade's commit, as a template's is
      const base = p!.outcome === 'reset' ? [] : [rel(keptRoleBase(builtin().revision))];
      return { subject: null, who: null, answer: { applied: { name: t.name, kind: 'role', state: after.state, etag: after.etag }, paths: [...rolePaths(t.name), ...base] } };
    },
  };
}

/** Step 6 of an upgrade's step: a name not behind, changed since it was read, or needing a person is skipped. */
function refusal(ctx: LibraryContext, t: Target, p: { outcome: UpgradeOutcome; etag: string | null } | null, changed: string): void {
  if (!p) throw new Skip(notBehind(ctx, t));
  const skip = (code: string | undefined, reason: string) => new Skip({ name: t.name, kind: t.kind, outcome: p.outcome, ...(code ? { code } : {}), reason });
  if (!ifMatchPasses(t.ifMatch, p.etag)) throw skip('precondition_failed', changed);
  if (!AUTOMATIC.has(p.outcome)) throw skip(undefined, NEEDS_A_PERSON[p.outcome as keyof typeof NEEDS_A_PERSON]);
}

/** One name, inside its slot: the root-relative paths it wrote, a clean template's prepared files, or a skip. */
async function upgradeOne(deps: UpgradeDeps, t: Target): Promise<Done | Pending | UpgradeSkipped> {
  try {
    return t.kind === 'template' ? await deps.door.run(templateStep(deps, t), STEP) : await deps.door.run(roleStep(deps, t), STEP);
  } catch (e) {
    if (e instanceof Skip) return e.skipped;
    throw e;
  }
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
  const { ctx, door, recorder, events } = deps;
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
          await door.runFiles(fs, t, steps(() => Promise.reject(why), () => readFacts(ctx, t.name)?.marker?.shipped === shipped.hash));
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
        const names = done.map((a) => unitKey(a.applied));
        events.publish('library.upgraded', { applied: done.length, skipped: nSkipped, names: names.slice(0, 100), ...(who ? { who } : {}) });
      }
      // the commit is queued (and kept across a crash): the journal has done its part
      await clearUpgrade(fs);
      return;
    }
    const t = targets[i]!;
    await door.slot(t, async () => {
      try {
        results[i] = await upgradeOne(deps, t);
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
