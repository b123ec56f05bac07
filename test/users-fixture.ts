/**
 * A users file with one user per role (and a second editor with an address),
 * their tokens, and bearer headers, for the tests of users and roles.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatUsers, tokenDigest, type UserEntry, type UserRole } from '../src/http/users.js';

export const TOKENS = {
  vera: 'viewer-token-vera-0123456789abcdef',
  carl: 'conductor-token-carl-0123456789abcdef',
  ann: 'editor-token-ann-0123456789abcdef',
  bob: 'editor-token-bob-0123456789abcdef',
} as const;

export const USERS: UserEntry[] = [
  { name: 'vera', role: 'viewer', token_sha256: tokenDigest(TOKENS.vera), email: null },
  { name: 'carl', role: 'conductor', token_sha256: tokenDigest(TOKENS.carl), email: null },
  { name: 'ann', role: 'editor', token_sha256: tokenDigest(TOKENS.ann), email: 'ann@example.org' },
  { name: 'bob', role: 'editor', token_sha256: tokenDigest(TOKENS.bob), email: null },
];

/** the user of each role the route table test asks as */
export const BY_ROLE: Record<UserRole, keyof typeof TOKENS> = { viewer: 'vera', conductor: 'carl', editor: 'ann' };

export const bearer = (who: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[who]}` });

/** Writes the users file into `dir` and returns its path. */
export async function writeUsers(dir: string, users: readonly UserEntry[] = USERS): Promise<string> {
  const file = join(dir, 'users.yaml');
  await writeFile(file, formatUsers(users));
  return file;
}
