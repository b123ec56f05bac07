import { problem } from '../../template/problems.js';
import type { LibraryContext } from '../context.js';
import { readRoleCopy } from '../role-copy.js';
import { look } from '../look.js';
import { etagOf, roleRevision } from '../disk/markers.js';
import { validateKitText, validateRoleMd } from './validate.js';
import type { ShippedRole } from '../shipped.js';
import { decideState, syncState } from '../state.js';
import type { RoleEntry } from '../entries.js';

/**
 * Role entries: the same state table as templates, over role revisions
 * (markers.ts). Roles are few and small: every call reads them from disk,
 * with any pending intent applied.
 */

function shippedView(s: ShippedRole) {
  const text = s.kit === null ? null : s.kit.toString('utf8');
  return { role_md: s.roleMd.toString('utf8'), kit: validateKitText(text).kit };
}

export function roleEntry(ctx: LibraryContext, name: string): RoleEntry | null {
  const builtin = ctx.shipped.roles.get(name) ?? null;
  const sv = builtin ? shippedView(builtin) : null;
  const base = { name, shipped: builtin !== null, shipped_role_md: sv?.role_md ?? null, shipped_kit: sv?.kit ?? null };
  const copy = readRoleCopy(ctx, name);
  if (copy.kind === 'missing') {
    if (!builtin || !sv) return null;
    const kitText = builtin.kit === null ? null : builtin.kit.toString('utf8');
    const problems = [...validateRoleMd(sv.role_md), ...validateKitText(kitText).problems];
    return { ...base, state: 'shipped', edited_outside: false, role_md: sv.role_md, kit: sv.kit, etag: etagOf(builtin.revision), valid: problems.length === 0, problems };
  }
  if (copy.kind === 'unreadable') {
    const problems = [problem('file.unreadable', `roles/${name} cannot be read (${copy.reason}); make it a plain folder`, '')];
    const state = builtin ? 'edited' : 'custom';
    return { ...base, state, edited_outside: false, role_md: '', kit: null, etag: etagOf(roleRevision(Buffer.alloc(0), null)), valid: false, problems };
  }
  const problems = [];
  const { roleMd, kit } = copy;
  // a file over its cap (fs-safe.ts) is never read: limit.size, as for a template
  if (roleMd.kind === 'too_large') problems.push(problem('limit.size', `roles/${name}/role.md is ${roleMd.size} bytes, over the cap; it is not read`, '/role_md'));
  else if (roleMd.kind === 'unreadable') problems.push(problem('file.unreadable', `roles/${name}/role.md cannot be read (${roleMd.reason})`, '/role_md'));
  else problems.push(...validateRoleMd(roleMd.kind === 'file' ? roleMd.text : null));
  let kitValue = null;
  if (kit.kind === 'too_large') problems.push(problem('limit.size', `roles/${name}/kit.json is ${kit.size} bytes, over the cap; it is not read`, '/kit'));
  else if (kit.kind === 'unreadable') problems.push(problem('file.unreadable', `roles/${name}/kit.json cannot be read (${kit.reason})`, '/kit'));
  else if (kit.kind === 'file') {
    const k = validateKitText(kit.text);
    kitValue = k.kit;
    problems.push(...k.problems);
  }
  const mdBytes = roleMd.kind === 'file' ? roleMd.bytes : Buffer.alloc(0);
  const revision = roleRevision(mdBytes, kit.kind === 'file' ? kit.bytes : null);
  const st = syncState(builtin ? decideState(builtin.revision, revision, copy.marker) : { state: 'custom' as const, edited_outside: false }, ctx.diverged.roles.has(name));
  return {
    ...base,
    ...st,
    role_md: roleMd.kind === 'file' ? roleMd.text : '',
    kit: kitValue,
    etag: etagOf(revision),
    valid: !problems.some((p) => p.severity === 'error'),
    problems,
    ...(ctx.diverged.roles.has(name) ? { diverged: ctx.diverged.roles.get(name)! } : {}),
  };
}

export function listRoleEntries(ctx: LibraryContext): RoleEntry[] {
  const out: RoleEntry[] = [];
  for (const name of [...look(ctx).catalogue.roles].sort()) {
    const e = roleEntry(ctx, name);
    if (e) out.push(e);
  }
  return out;
}
