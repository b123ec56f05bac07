/**
 * The desk's people (docs/security.md, Users and roles): the users file
 * (DESK_USERS_FILE), `users: [{ name, role, token_sha256, email? }]`, read
 * into a table keyed by each token's sha256. A presented token is hashed and
 * looked up, so the secret itself never meets a comparison that could stop
 * at its first differing byte; the file holds no secret at all.
 *
 * Parsing collects every problem rather than stopping at the first, so a
 * refused start (or a refused reload) names them all.
 */
import { randomBytes } from 'node:crypto';
import { parseDocument } from 'yaml';
import { sha256Hex } from '../library/index.js';

/** From the least to the most: each role may do what the one before may. */
export const USER_ROLES = ['viewer', 'conductor', 'editor'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export interface DeskUser {
  name: string;
  role: UserRole;
  /** the commit author's address; null: `<name>@desk` */
  email: string | null;
}

/** A user as the file holds it. */
export interface UserEntry extends DeskUser {
  token_sha256: string;
}

/**
 * A name begins with a letter and holds no `:`, so it can never read as a
 * client address (what `who` is when the desk knows nobody) nor break a
 * `Name <email>` author line.
 */
export const USER_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;
const EMAIL = /^[^<>\s@]+@[^<>\s@]+$/;
const DIGEST = /^[0-9a-f]{64}$/;

/** DESK_TOKEN's user: the operator of a desk with one secret. */
export const TOKEN_USER_NAME = 'desk';

export const hasRole = (user: Pick<DeskUser, 'role'>, needed: UserRole): boolean => USER_ROLES.indexOf(user.role) >= USER_ROLES.indexOf(needed);

/** The hex sha256 of a token, as `token_sha256` holds it. */
export const tokenDigest = (token: string): string => sha256Hex(token);

/** A new token: 32 random bytes, base64url (43 characters). */
export const newToken = (): string => randomBytes(32).toString('base64url');

export interface UsersParse {
  users: UserEntry[];
  /** one line each: `users[2].role: …`; empty when the file is good */
  problems: string[];
}

/** The users file's text → its users and every problem in it. An empty file is no users. */
export function parseUsers(text: string): UsersParse {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) return { users: [], problems: doc.errors.map((e) => `YAML: ${e.message.split('\n')[0]}`) };
  const root: unknown = doc.toJS({ maxAliasCount: 0 });
  if (root === null || root === undefined) return { users: [], problems: [] };
  if (typeof root !== 'object' || Array.isArray(root)) return { users: [], problems: ['the file is not a mapping with `users:`'] };
  const extra = Object.keys(root).filter((k) => k !== 'users');
  const problems: string[] = extra.map((k) => `unknown key \`${k}\` (the file holds \`users:\` only)`);
  const list = (root as { users?: unknown }).users ?? [];
  if (!Array.isArray(list)) return { users: [], problems: [...problems, '`users` is not a list'] };
  const users: UserEntry[] = [];
  const names = new Set<string>();
  const digests = new Set<string>();
  list.forEach((item: unknown, i) => {
    const at = `users[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push(`${at}: not a mapping`);
      return;
    }
    const u = item as Record<string, unknown>;
    const before = problems.length;
    for (const k of Object.keys(u)) if (!['name', 'role', 'token_sha256', 'email'].includes(k)) problems.push(`${at}: unknown key \`${k}\``);
    const { name, role, token_sha256: digest, email } = u;
    if (typeof name !== 'string' || !USER_NAME.test(name)) problems.push(`${at}.name: a letter, then up to 63 letters, digits, \`.\`, \`_\` or \`-\``);
    else if (names.has(name)) problems.push(`${at}.name: \`${name}\` is listed twice`);
    if (typeof role !== 'string' || !(USER_ROLES as readonly string[]).includes(role)) problems.push(`${at}.role: one of ${USER_ROLES.join(', ')}`);
    if (typeof digest !== 'string' || !DIGEST.test(digest)) problems.push(`${at}.token_sha256: 64 lowercase hex digits (desk-library user add writes it)`);
    else if (digests.has(digest)) problems.push(`${at}.token_sha256: the same token as another user`);
    if (email !== undefined && email !== null && (typeof email !== 'string' || !EMAIL.test(email))) problems.push(`${at}.email: an address like name@example.org`);
    if (problems.length > before) return;
    names.add(name as string);
    digests.add(digest as string);
    users.push({ name: name as string, role: role as UserRole, token_sha256: digest as string, email: typeof email === 'string' ? email : null });
  });
  return { users, problems };
}

/** Users as the file holds them, in their order. */
export function formatUsers(users: readonly UserEntry[]): string {
  if (!users.length) return 'users: []\n';
  const lines = ['users:'];
  for (const u of users) {
    lines.push(`  - name: ${u.name}`, `    role: ${u.role}`, `    token_sha256: ${u.token_sha256}`);
    if (u.email) lines.push(`    email: ${JSON.stringify(u.email)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Who the desk knows: by token digest, and by name (and address) for authors and the proxy. */
export interface UserTable {
  readonly byDigest: ReadonlyMap<string, DeskUser>;
  readonly byName: ReadonlyMap<string, DeskUser>;
}

/** The file's users, plus DESK_TOKEN's `desk` editor when a token is set (the file's own `desk`, if any, keeps its name). */
export function userTable(users: readonly UserEntry[], token?: string | null): UserTable {
  const byDigest = new Map<string, DeskUser>();
  const byName = new Map<string, DeskUser>();
  const t = token?.trim();
  if (t) {
    const desk: DeskUser = { name: TOKEN_USER_NAME, role: 'editor', email: null };
    byDigest.set(tokenDigest(t), desk);
    byName.set(desk.name, desk);
  }
  for (const u of users) {
    const user: DeskUser = { name: u.name, role: u.role, email: u.email };
    byDigest.set(u.token_sha256, user);
    byName.set(u.name, user);
    if (u.email) byName.set(u.email.toLowerCase(), user);
  }
  return { byDigest, byName };
}
