/**
 * The users the desk knows now (docs/security.md, Users and roles): the
 * users file read at the start, and again on SIGHUP (server.ts) or when the
 * file changes. A file that does not read keeps the users from before and
 * says why in the log; only at the start does it refuse (UsersFileError).
 * Once a file is set, every request must name someone, even while the file
 * lists nobody: an emptied file locks everyone out, never lets everyone in.
 */
import { unwatchFile, watchFile } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import { readUsersFile, readUsersFileSync } from './users-file.js';
import { type DeskUser, parseUsers, tokenDigest, type UserTable, userTable, USER_NAME } from './users.js';

export class UsersFileError extends Error {
  override readonly name = 'UsersFileError';
}

export interface UserDirectoryOptions {
  /** DESK_USERS_FILE; null: no file */
  file?: string | null;
  /** DESK_TOKEN: one `editor` named `desk`, beside the file's users */
  token?: string | null;
}

/** How often a change of the file is looked for: a stat a second, cheap and blind to editors' rename tricks. */
const WATCH_MS = 1_000;

export class UserDirectory {
  private table: UserTable;
  private watching: ((cur: { mtimeMs: number; size: number; ino: number }, prev: { mtimeMs: number; size: number; ino: number }) => void) | null = null;

  private constructor(
    readonly file: string | null,
    private readonly token: string | null,
    table: UserTable,
  ) {
    this.table = table;
  }

  /** Reads the file now; throws UsersFileError naming every problem. */
  static open(o: UserDirectoryOptions = {}): UserDirectory {
    const file = o.file?.trim() || null;
    const token = o.token?.trim() || null;
    if (file === null) return new UserDirectory(null, token, userTable([], token));
    const read = readUsersFileSync(file);
    if ('why' in read) throw new UsersFileError(`DESK_USERS_FILE ${file} cannot be read: ${read.why}`);
    const { users, problems } = parseUsers(read.text);
    if (problems.length) throw new UsersFileError(`DESK_USERS_FILE ${file}: ${problems.join('; ')}`);
    return new UserDirectory(file, token, userTable(users, token));
  }

  /** A users file is set, or DESK_TOKEN: then every /api request must say who it is (also on loopback), even while nobody is listed. */
  get active(): boolean {
    return this.file !== null || this.table.byDigest.size > 0;
  }

  get size(): number {
    return this.table.byDigest.size;
  }

  /** A users file is set and nobody can sign in with a token: it lists no one, and there is no DESK_TOKEN. */
  get nobody(): boolean {
    return this.file !== null && this.table.byDigest.size === 0;
  }

  /** The user whose token this is: one hash and one map lookup, whatever the number of users. */
  identify(token: string): DeskUser | undefined {
    return this.identifyDigest(tokenDigest(token));
  }

  /** The user whose token has this sha256 (tokenDigest), for a caller that needs the digest itself too. */
  identifyDigest(digest: string): DeskUser | undefined {
    return this.table.byDigest.get(digest);
  }

  /** A user by name, or by address (the auth proxy's header may carry either). */
  byName(name: string): DeskUser | undefined {
    return this.table.byName.get(name) ?? this.table.byName.get(name.toLowerCase());
  }

  /**
   * The commit author for a `who` (docs/history.md): a known user's
   * `name <email>` (or `name <name@desk>`); a name the proxy vouched for that
   * is an address, as itself; a client address (no person known) → null,
   * the commit's author is DESK_AUTHOR.
   */
  authorOf(who: string): { name: string; email: string } | null {
    const u = this.byName(who);
    if (u) return { name: u.name, email: u.email ?? `${u.name}@desk` };
    if (/^[^<>\s@]+@[^<>\s@]+$/.test(who)) return { name: who.slice(0, who.indexOf('@')), email: who };
    if (USER_NAME.test(who)) return { name: who, email: `${who}@desk` };
    return null;
  }

  /** Reads the file again; on a problem the users stay as they were. Resolves to whether it took. */
  async reload(log: FastifyBaseLogger): Promise<boolean> {
    if (this.file === null) return false;
    const read = await readUsersFile(this.file);
    if ('why' in read) {
      log.error({ file: this.file, err: read.why }, 'users file not read; the users stay as they were');
      return false;
    }
    const { users, problems } = parseUsers(read.text);
    if (problems.length) {
      log.error({ file: this.file, problems }, 'users file refused; the users stay as they were');
      return false;
    }
    this.table = userTable(users, this.token);
    if (this.nobody) log.warn({ file: this.file, users: 0 }, 'users file lists nobody: no token signs in until one is added (desk-library user add)');
    else log.info({ file: this.file, users: users.length }, 'users file read');
    return true;
  }

  /** Reload whenever the file's size, time or inode changes, until unwatch(). */
  watch(log: FastifyBaseLogger): void {
    if (this.file === null || this.watching) return;
    this.watching = (cur, prev) => {
      if (cur.mtimeMs === prev.mtimeMs && cur.size === prev.size && cur.ino === prev.ino) return;
      void this.reload(log);
    };
    watchFile(this.file, { interval: WATCH_MS, persistent: false }, this.watching);
  }

  unwatch(): void {
    if (this.file !== null && this.watching) unwatchFile(this.file, this.watching);
    this.watching = null;
  }
}
