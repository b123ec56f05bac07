/**
 * The users the desk knows now (docs/security.md, Users and roles): the
 * users file read at the start, and again on SIGHUP (server.ts) or when the
 * file changes. A file that does not read keeps the users from before and
 * says why in the log; only at the start does it refuse (UsersFileError).
 */
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
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
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new UsersFileError(`DESK_USERS_FILE ${file} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const { users, problems } = parseUsers(text);
    if (problems.length) throw new UsersFileError(`DESK_USERS_FILE ${file}: ${problems.join('; ')}`);
    return new UserDirectory(file, token, userTable(users, token));
  }

  /** Is anyone known? Then every /api request must say who it is (also on loopback). */
  get active(): boolean {
    return this.table.byDigest.size > 0;
  }

  get size(): number {
    return this.table.byDigest.size;
  }

  /** The user whose token this is: one hash and one map lookup, whatever the number of users. */
  identify(token: string): DeskUser | undefined {
    return this.table.byDigest.get(tokenDigest(token));
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
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      log.error({ file: this.file, err: (e as NodeJS.ErrnoException).code ?? (e as Error).message }, 'users file not read; the users stay as they were');
      return false;
    }
    const { users, problems } = parseUsers(text);
    if (problems.length) {
      log.error({ file: this.file, problems }, 'users file refused; the users stay as they were');
      return false;
    }
    this.table = userTable(users, this.token);
    log.info({ file: this.file, users: users.length }, 'users file read');
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
