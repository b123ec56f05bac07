/**
 * What one write names: a template or a role, by name. Its key is the
 * name's queue slot and its history key (`template:<name>`, `role:<name>`),
 * built here only, never sliced back apart by hand.
 */
export type UnitKind = 'template' | 'role';

export interface Unit {
  readonly kind: UnitKind;
  readonly name: string;
}

/** The slot's and history's key of a unit. */
export type UnitKey = `${UnitKind}:${string}`;

export const unitKey = (u: Unit): UnitKey => `${u.kind}:${u.name}`;

/** The unit a key names: the one place a key is taken apart. */
export function unitOfKey(key: UnitKey): Unit {
  const colon = key.indexOf(':');
  return { kind: key.slice(0, colon) as UnitKind, name: key.slice(colon + 1) };
}

export const templateUnit = (name: string): Unit => ({ kind: 'template', name });
export const roleUnit = (name: string): Unit => ({ kind: 'role', name });

/**
 * The diverged names (state.ts, kept in the sync's state file) and the sync's
 * contract spell a kind as its folder, `templates` or `roles`: that spelling
 * stays at that boundary, converted here.
 */
export type FolderKind = 'templates' | 'roles';

export const folderOf = (kind: UnitKind): FolderKind => (kind === 'template' ? 'templates' : 'roles');
export const unitOfFolder = (kind: FolderKind, name: string): Unit => ({ kind: kind === 'templates' ? 'template' : 'role', name });
