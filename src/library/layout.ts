import { join } from 'node:path';
import { DeskError } from '../errors.js';
import { PROPOSAL_ID } from '../schema/proposals.js';
import { isRoleName, isTemplateName } from '../template/names.js';

/**
 * Every path of the library root that the service reads or writes
 * (docs/operations.md, "The library root on disk"), in one place:
 *
 * ```
 * templates/<name>.yaml                   an operator copy, or a custom template
 * templates/.<name>.shipped               its marker (sha256 lines, disk/markers.ts)
 * templates/.<name>.intent                a save or reset under way (disk/intents.ts)
 * templates/.shipped-base/<sha256>.yaml   shipped bytes a copy was saved against
 * roles/<name>/role.md, kit.json, .shipped
 * roles/.<name>.intent
 * roles/.shipped-base/<revision>.json     a built-in role's files a copy was saved against
 * proposals/<id>.json
 * launches/<id>.json
 * .desk-journal/<entry>.intent            what a crash must finish: a round, an upgrade, queued commits (disk/journal.ts)
 * .git/                                   the repository history keeps (docs/history.md), when it is a folder
 * ```
 *
 * Paths come as segments (what disk/fs-safe.ts walks, one folder at a time,
 * refusing links) and as root-relative strings with forward slashes (what
 * git and history name). Names are checked (template/names.ts) before a
 * path is built from them.
 */

/** Names are checked before any path is built from them: a bad one is 400 invalid_name. */
export function checkTemplateName(name: string): void {
  if (typeof name !== 'string' || !isTemplateName(name)) throw new DeskError('invalid_name', 'a template name is lowercase letters, digits and dashes, at most 64');
}

export function checkRoleName(name: string): void {
  if (typeof name !== 'string' || !isRoleName(name)) throw new DeskError('invalid_name', 'a role name is a lowercase identifier (letters, digits, underscores), at most 64');
}

export const TEMPLATES = 'templates';
export const KEPT_BASES = '.shipped-base';
export const ROLES = 'roles';
export const PROPOSALS = 'proposals';
export const LAUNCHES = 'launches';
/** The journal's folder at the top of the root (disk/journal.ts): never committed, never synced. */
export const JOURNAL = '.desk-journal';
/** The repository's folder at the top of the root (docs/history.md): history is kept only when it is a folder. */
export const GIT_DIR = '.git';
/** The repository's folder of a root, as git is told it (GIT_DIR) and as a start looks at it. */
export const gitDirOf = (root: string): string => join(root, GIT_DIR);
/** The files of a role's folder. */
export const ROLE_FILES = ['role.md', 'kit.json', '.shipped'] as const;

export type Segments = string[];

export const templateCopy = (name: string): Segments => [TEMPLATES, `${name}.yaml`];
export const templateMarker = (name: string): Segments => [TEMPLATES, `.${name}.shipped`];
export const templateIntent = (name: string): Segments => [TEMPLATES, `.${name}.intent`];
export const keptBase = (sha256: string): Segments => [TEMPLATES, KEPT_BASES, `${sha256}.yaml`];
/** A role's kept base: role.md and kit.json as one JSON file under the role revision (roles/files.ts keepRoleBase); tracked and synced like a template's. */
export const keptRoleBase = (revision: string): Segments => [ROLES, KEPT_BASES, `${revision}.json`];
export const roleDir = (name: string): Segments => [ROLES, name];
export const roleFile = (name: string, file: (typeof ROLE_FILES)[number]): Segments => [ROLES, name, file];
export const roleIntent = (name: string): Segments => [ROLES, `.${name}.intent`];
export const proposalRecord = (id: string): Segments => [PROPOSALS, `${id}.json`];
export const launchRecord = (id: string): Segments => [LAUNCHES, `${id}.json`];

/** The journal's entries (disk/journal.ts): one round, one upgrade, one landing, a queued commit each. */
export const ROUND_ENTRY = 'round.intent';
export const UPGRADE_ENTRY = 'upgrade.intent';
export const LANDING_ENTRY = 'landing.intent';
export const COMMIT_PREFIX = 'commit-';
/** Where the release before the journal kept those records, under `.git/`; a start adopts them into the journal (disk/journal-legacy.ts). */
export const LEGACY = { round: [GIT_DIR, 'desk-round.json'], upgrade: [GIT_DIR, 'desk-upgrade.json'], pending: [GIT_DIR, 'desk-history', 'pending'], landing: [GIT_DIR, 'desk-history', 'landing.json'] } as const;

/** Segments as git names them: `templates/quick-fix.yaml`. */
export const rel = (segs: Segments): string => segs.join('/');

/** A template's tracked files (copy, marker), root-relative. */
export const templatePaths = (name: string): [string, string] => [rel(templateCopy(name)), rel(templateMarker(name))];
/** A role's tracked files (role.md, kit.json, marker), root-relative. */
export const rolePaths = (name: string): [string, string, string] => [rel(roleFile(name, 'role.md')), rel(roleFile(name, 'kit.json')), rel(roleFile(name, '.shipped'))];

/** The top-level entries history tracks (commit-queue.ts, history/open.ts). */
export const TRACKED_TOP = ['.gitignore', TEMPLATES, ROLES, PROPOSALS, LAUNCHES] as const;

const SHA256 = /^[0-9a-f]{64}$/;
export const isSha256 = (s: string): boolean => SHA256.test(s);

/** Which unit of the library a root-relative path belongs to: a template's or a role's files, or a file of no name (a kept base, a proposal or launch record). */
export type Unit = { kind: 'template'; name: string } | { kind: 'role'; name: string } | { kind: 'plain'; path: string };

/**
 * The unit a root-relative path belongs to, or null for a path the service
 * never reads or writes (`templates/notes.yml`, `README.md`, an intent).
 */
export function unitOf(path: string): Unit | null {
  const parts = path.split('/');
  if (parts[0] === TEMPLATES && parts.length === 2) {
    const f = parts[1]!;
    if (f.endsWith('.yaml') && !f.startsWith('.') && isTemplateName(f.slice(0, -5))) return { kind: 'template', name: f.slice(0, -5) };
    if (f.startsWith('.') && f.endsWith('.shipped') && isTemplateName(f.slice(1, -8))) return { kind: 'template', name: f.slice(1, -8) };
    return null;
  }
  if (parts[0] === TEMPLATES && parts[1] === KEPT_BASES && parts.length === 3) {
    return parts[2]!.endsWith('.yaml') && isSha256(parts[2]!.slice(0, -5)) ? { kind: 'plain', path } : null;
  }
  if (parts[0] === ROLES && parts[1] === KEPT_BASES && parts.length === 3) {
    return parts[2]!.endsWith('.json') && isSha256(parts[2]!.slice(0, -5)) ? { kind: 'plain', path } : null;
  }
  if (parts[0] === ROLES && parts.length === 3) {
    return isRoleName(parts[1]!) && (ROLE_FILES as readonly string[]).includes(parts[2]!) ? { kind: 'role', name: parts[1]! } : null;
  }
  if ((parts[0] === PROPOSALS || parts[0] === LAUNCHES) && parts.length === 2) {
    // a launch draft's id has a proposal's form (schema/launches.ts)
    return parts[1]!.endsWith('.json') && PROPOSAL_ID.test(parts[1]!.slice(0, -5)) ? { kind: 'plain', path } : null;
  }
  return null;
}
