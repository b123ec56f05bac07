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
 * The slots are taken one inside the other in name order and held until the
 * one commit is queued, so no other write of these names can come between a
 * copy's files and the commit that holds them (it would find them "on
 * disk"). Every multi-name holder takes them in that order, one at a time
 * otherwise, so none waits on another.
 */
import { DeskError, isDeskError } from '../../errors.js';
import type { LibraryContext, WriteGuard } from '../context.js';
import type { FsContext } from '../disk/fs-safe.js';
import { ifMatchPasses } from '../disk/markers.js';
import { recoverRole, recoverTemplate } from '../disk/recovery.js';
import type { EventBus } from '../events/bus.js';
import type { Recorder } from '../history/recorder.js';
import { checkRoleName, checkTemplateName, keptBase, rel, rolePaths, templatePaths } from '../layout.js';
import { readRoleCopy } from '../roles/copy.js';
import { roleEntry } from '../roles/entries.js';
import { writeRoleReset, writeRoleSave } from '../roles/files.js';
import { writeTemplateReset, writeTemplateSave } from '../templates/files.js';
import { readFacts } from '../templates/read.js';
import type { UpgradeRequestBody, UpgradeResultAnswer } from '../../schema/upgrade.js';
import { AUTOMATIC, planRole, planTemplate, planUpgrade, type UpgradeOutcome } from './plan.js';

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
        if (AUTOMATIC.has(p.outcome)) out.push({ kind, name: p.name });
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

/** One name, inside its slot: the root-relative paths it wrote, or a skip. */
async function upgradeOne(deps: UpgradeDeps, fs: FsContext, t: Target): Promise<{ applied: UpgradeApplied; paths: string[] } | UpgradeSkipped> {
  const { ctx, recorder } = deps;
  const skip = (outcome: UpgradeOutcome | null, code: string | undefined, reason: string): UpgradeSkipped => ({ name: t.name, kind: t.kind, outcome, ...(code ? { code } : {}), reason });
  if (t.kind === 'template') {
    // standing (writes.ts): what changed on disk without the service is committed on its own, a left intent finished
    if (!ctx.diverged.templates.has(t.name)) recorder.found(`template:${t.name}`);
    await recoverTemplate(fs, t.name);
    const p = await planTemplate(ctx, t.name);
    if (!p) return notBehind(ctx, t);
    if (!ifMatchPasses(t.ifMatch, p.etag)) return skip(p.outcome, 'precondition_failed', `${t.name} changed since it was read`);
    if (!AUTOMATIC.has(p.outcome)) return skip(p.outcome, undefined, NEEDS_A_PERSON[p.outcome as keyof typeof NEEDS_A_PERSON]);
    const shipped = ctx.shipped.templates.get(t.name)!;
    const paths: string[] = [...templatePaths(t.name)];
    if (p.outcome === 'reset') {
      await settle(() => writeTemplateReset(fs, t.name), () => recoverTemplate(fs, t.name), () => readFacts(ctx, t.name)?.facts.state === 'shipped');
    } else {
      const merged = p.merged!;
      const landed = () => readFacts(ctx, t.name)?.marker?.shipped === shipped.hash;
      await settle(() => writeTemplateSave(fs, t.name, merged, shipped), () => recoverTemplate(fs, t.name), landed);
      paths.push(rel(keptBase(shipped.hash)));
    }
    const after = readFacts(ctx, t.name);
    if (!after) throw new DeskError('internal', `template ${t.name} is missing after its upgrade`);
    return { applied: { name: t.name, kind: 'template', state: after.facts.state, etag: after.facts.etag }, paths };
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
  return { applied: { name: t.name, kind: 'role', state: after.state, etag: after.etag }, paths: [...rolePaths(t.name)] };
}

/** The upgrade: every named copy (or every automatic one), one commit, one event. */
export async function applyUpgrade(deps: UpgradeDeps, request: UpgradeRequest, who: string | null = null): Promise<UpgradeResult> {
  const { ctx, guard, recorder, events } = deps;
  const fs = guard.writable();
  const skipped: UpgradeSkipped[] = [];
  const applied: UpgradeApplied[] = [];
  const paths: string[] = [];
  const targets = await targetsOf(deps, request, skipped);

  /** Takes target i's slot, upgrades it, and goes on to the next inside it; the last one records. */
  const step = async (i: number): Promise<void> => {
    if (i === targets.length) {
      if (applied.length === 0) return;
      recorder.recordPaths([...new Set(paths)], upgradeSubject(applied.length), who);
      ctx.logger.info({ op: 'upgraded', applied: applied.length, skipped: skipped.length, who }, 'library upgraded');
      const names = applied.map((a) => `${a.kind}:${a.name}`);
      events.publish('library.upgraded', { applied: applied.length, skipped: skipped.length, names: names.slice(0, 100) });
      return;
    }
    const t = targets[i]!;
    await guard.queue.run(`${t.kind}:${t.name}`, async () => {
      try {
        const r = await upgradeOne(deps, fs, t);
        if ('applied' in r) {
          applied.push(r.applied);
          paths.push(...r.paths);
        } else skipped.push(r);
      } catch (e) {
        // one copy that cannot be written is skipped with its code; the others go on
        const code = isDeskError(e) ? e.code : 'internal';
        ctx.logger.warn({ name: t.name, kind: t.kind, code }, 'upgrade: a copy could not be written');
        skipped.push({ name: t.name, kind: t.kind, outcome: null, code, reason: (e as Error).message });
      }
      await step(i + 1);
    });
  };
  await step(0);
  return { applied, skipped };
}
