/**
 * The upgrade plan (docs/operations.md, Upgrading): every operator copy
 * saved against a shipped version other than today's, and what an upgrade
 * would do with it. Plain reads: nothing is written, nothing waits for a
 * slot. The apply (apply.ts) plans each name again inside its slot, so what
 * it writes is decided on what loads then.
 *
 * Left out on purpose: names with no copy, custom names (nothing shipped to
 * move onto), read-only names (never written), and names a sync left
 * diverged — they need that decision first (docs/history.md, Diverged).
 */
import type { UpgradeOutcomeName, UpgradePlanAnswer } from '../../schema/upgrade.js';
import type { Problem } from '../../template/problems.js';
import type { LibraryContext } from '../context.js';
import { look, pointLook } from '../look.js';
import type { CatalogueGen } from '../memos/validation-memo.js';
import { type FsContext, readNoFollowSync, safeDirSync } from '../disk/fs-safe.js';
import { formatMarker, roleRevision, sha256Hex } from '../disk/markers.js';
import { KEPT_BASES, TEMPLATES } from '../layout.js';
import { canonicalJson, canonicalRoleMd } from '../roles/canonical.js';
import { readRoleCopy } from '../role-copy.js';
import { roleEntry } from '../roles/entries.js';
import { readRoleBase } from '../roles/files.js';
import { validateKitText, validateRoleMd } from '../roles/validate.js';
import { readFacts, readIfBehind, type TemplateRead } from '../templates/read.js';
import { threeWayMerge } from '../templates/three-way.js';
import type { EntryState } from '../entries.js';

/**
 * What an upgrade does with a copy: `reset` an unedited copy of an older
 * shipped version (it becomes today's shipped); `clean` a merge with no
 * conflict whose result validates; `conflicts` and `invalid` need a person
 * (the rebase view); `no_kept_base` the older shipped version is not known,
 * so only a reset or an acknowledge applies.
 */
export type UpgradeOutcome = UpgradeOutcomeName;

/** The outcomes an apply writes without a person. */
export const AUTOMATIC: ReadonlySet<UpgradeOutcome> = new Set(['reset', 'clean']);

export interface PlannedTemplate {
  name: string;
  state: EntryState;
  outcome: UpgradeOutcome;
  /** the copy's ETag now: an apply's `if_match` is checked against it */
  etag: string;
  /** conflict blocks of the merge (0 unless `conflicts`) */
  conflicts: number;
  /** the merged text's problems (`invalid`: at least one error) */
  problems: Problem[];
  /** the text a `clean` upgrade saves; null otherwise */
  merged: string | null;
  /** the kept base (the older shipped bytes) an edited copy merges from; null for `reset` and `no_kept_base` */
  base: string | null;
  /** the shipped version the copy's marker named when planned */
  from: string;
}

export interface PlannedRole {
  name: string;
  state: EntryState;
  outcome: UpgradeOutcome;
  etag: string;
  conflicts: number;
  problems: Problem[];
  /** the files a `clean` upgrade saves, canonical, with their marker; null otherwise */
  merged: { role_md: string; kit: string | null; marker: string } | null;
  /** the kept base's role.md an edited copy merges from; null for `reset` and `no_kept_base` */
  base: string | null;
}

export interface UpgradePlan {
  templates: PlannedTemplate[];
  roles: PlannedRole[];
}

/** A copy of an older shipped version: the only two states an upgrade moves. */
const BEHIND: ReadonlySet<EntryState> = new Set(['stale', 'shipped_changed_since']);

/** One template's plan, from what loads now; null when it is not behind (or is left out, see above). */
export async function planTemplate(ctx: LibraryContext, name: string, at: CatalogueGen = pointLook(ctx), known?: PlannedTemplate): Promise<PlannedTemplate | null> {
  const shipped = ctx.shipped.templates.get(name);
  if (!ctx.fs || !shipped || ctx.readOnly.has(name) || ctx.diverged.templates.has(name)) return null;
  return planRead(ctx, name, readFacts(ctx, name), at, known);
}

/**
 * templates/files.ts readKeptBase, read synchronously (a small local file, in
 * microseconds): an apply plans in its slots while the batch's flushes hold
 * the thread pool (templates/files.ts landSaves), and a read queued behind them would wait.
 */
function keptBaseText(fs: FsContext, hash: string): string | null {
  const dir = safeDirSync(fs, [TEMPLATES, KEPT_BASES])?.dir ?? null;
  if (!dir) return null;
  const r = readNoFollowSync(`${dir}/${hash}.yaml`);
  // content-addressed: bytes that no longer hash to their name are not the base
  return r.kind === 'file' && sha256Hex(r.bytes) === hash ? r.bytes.toString('utf8') : null;
}

/**
 * A template's plan from its files as read (planTemplate, or the whole
 * plan's look). `known`: a plan of the same name made moments before (an
 * apply's of `{}`); while the copy's bytes and marker are the same, its
 * merge is the same, and only the validation is asked again (of the memo).
 */
async function planRead(ctx: LibraryContext, name: string, r: TemplateRead | null, at: CatalogueGen, known?: PlannedTemplate): Promise<PlannedTemplate | null> {
  const shipped = ctx.shipped.templates.get(name);
  if (!ctx.fs || !shipped || ctx.diverged.templates.has(name)) return null;
  if (!r || r.unreadable || !r.marker || !BEHIND.has(r.facts.state)) return null;
  const none = { name, state: r.facts.state, etag: r.facts.etag, conflicts: 0, problems: [] as Problem[], merged: null, base: null, from: r.marker.shipped };
  if (r.facts.state === 'stale') return { ...none, outcome: 'reset' };
  const same = known?.base != null && known.etag === r.facts.etag && known.from === r.marker.shipped;
  const old = same ? known!.base : keptBaseText(ctx.fs, r.marker.shipped);
  if (old === null) return { ...none, outcome: 'no_kept_base' };
  const base = { ...none, base: old };
  const m = same && known!.merged !== null ? { merged: known!.merged, conflicts: 0 } : threeWayMerge(r.source, old, shipped.text);
  if (m.conflicts > 0) return { ...base, outcome: 'conflicts', conflicts: m.conflicts };
  const v = ctx.memo.whole(name, m.merged, sha256Hex(m.merged), at).validation;
  if (!v.valid) return { ...base, outcome: 'invalid', problems: v.problems };
  return { ...base, outcome: 'clean', problems: v.problems, merged: m.merged };
}

/**
 * kit.json is JSON, not lines: it merges only when one side left it as it
 * was (or both made the same change); else it is one conflict.
 */
function mergeKit(copy: string | null, base: string | null, theirs: string | null): { kit: string | null; conflict: boolean } {
  if (copy === base) return { kit: theirs, conflict: false };
  if (theirs === base || theirs === copy) return { kit: copy, conflict: false };
  return { kit: copy, conflict: true };
}

/** One role's plan, as planTemplate: role.md merged as text, kit.json by mergeKit. */
export async function planRole(ctx: LibraryContext, name: string): Promise<PlannedRole | null> {
  const builtin = ctx.shipped.roles.get(name);
  if (!ctx.fs || !builtin || ctx.diverged.roles.has(name)) return null;
  const entry = roleEntry(ctx, name);
  if (!entry || !BEHIND.has(entry.state)) return null;
  const copy = readRoleCopy(ctx, name);
  if (copy.kind !== 'folder' || !copy.marker || copy.roleMd.kind !== 'file' || (copy.kit.kind !== 'file' && copy.kit.kind !== 'missing')) return null;
  const none = { name, state: entry.state, etag: entry.etag, conflicts: 0, problems: [] as Problem[], merged: null, base: null };
  if (entry.state === 'stale') return { ...none, outcome: 'reset' };
  const old = await readRoleBase(ctx.fs, copy.marker.shipped);
  if (old === null) return { ...none, outcome: 'no_kept_base' };
  const base = { ...none, base: old.role_md };
  const md = threeWayMerge(copy.roleMd.text, old.role_md, builtin.roleMd.toString('utf8'));
  const kit = mergeKit(copy.kit.kind === 'file' ? copy.kit.text : null, old.kit, builtin.kit === null ? null : builtin.kit.toString('utf8'));
  const conflicts = md.conflicts + (kit.conflict ? 1 : 0);
  if (conflicts > 0) return { ...base, outcome: 'conflicts', conflicts };
  const problems = validateRoleMd(md.merged);
  const k = validateKitText(kit.kit);
  problems.push(...k.problems);
  if (problems.some((p) => p.severity === 'error')) return { ...base, outcome: 'invalid', problems };
  // written as a role save writes it (roles/canonical.ts), its marker on today's built-in revision
  const roleMd = canonicalRoleMd(md.merged);
  const kitText = k.kit ? canonicalJson(k.kit) : null;
  const revision = roleRevision(Buffer.from(roleMd), kitText === null ? null : Buffer.from(kitText));
  return { ...base, outcome: 'clean', problems, merged: { role_md: roleMd, kit: kitText, marker: formatMarker({ shipped: builtin.revision, copy: revision }) } };
}

/** Slices of synchronous merging yield to the event loop, so a plan of thousands never stalls other requests. */
const SLICE_MS = 8;

/** The whole plan, sorted by name. */
export async function planUpgrade(ctx: LibraryContext): Promise<UpgradePlan> {
  // one look: the folder's entries say which names have a copy, a marker, an intent; its catalogue validates the merges
  const l = look(ctx);
  const behind = (s: EntryState) => BEHIND.has(s);
  // first the reads, then the merges and validations one after another: the validator runs hot, as a list's does
  const reads: [string, TemplateRead][] = [];
  let sliceStart = performance.now();
  const slice = async () => {
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  };
  for (const name of [...ctx.shipped.templates.keys()].sort()) {
    if (ctx.readOnly.has(name) || ctx.diverged.templates.has(name)) continue;
    const r = readIfBehind(ctx, name, l, behind);
    if (r) reads.push([name, r]);
    await slice();
  }
  const templates: PlannedTemplate[] = [];
  for (const [name, r] of reads) {
    const p = await planRead(ctx, name, r, l);
    if (p) templates.push(p);
    await slice();
  }
  const roles: PlannedRole[] = [];
  for (const name of [...ctx.shipped.roles.keys()].sort()) {
    const p = await planRole(ctx, name);
    if (p) roles.push(p);
  }
  return { templates, roles };
}

/**
 * The plan as answered (docs/api.md, Upgrade): the merged texts stay here.
 * An edited copy's kept base goes out (a role's role.md): the page shows the
 * upstream change alone from it, and merges it with the copy to show what
 * the upgrade writes.
 */
export function planAnswer(plan: UpgradePlan): UpgradePlanAnswer {
  return {
    templates: plan.templates.map(({ name, state, outcome, etag, conflicts, problems, base }) => ({
      name,
      state,
      outcome,
      etag,
      conflicts,
      problems,
      ...(base === null ? {} : { base }),
    })),
    roles: plan.roles.map(({ name, state, outcome, etag, conflicts, base }) => ({ name, state, outcome, etag, conflicts, ...(base === null ? {} : { base }) })),
  };
}
