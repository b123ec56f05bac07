/**
 * Environment → options (docs/operations.md, Configuration). Pure: reads the env object
 * it is given, so tests pass their own; server.ts reports a ConfigError and
 * exits 1.
 */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { AuthProxyOptions } from './http/auth.js';
import { trustedList } from './http/auth.js';
import { checkListenAddress } from './http/guard.js';
import { USER_ROLES, type UserRole } from './http/users.js';
import { DEFAULT_DECIDED_KEEP, DEFAULT_LAUNCHES_PER_HOUR, DEFAULT_PROPOSALS_PER_HOUR } from './library/index.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  /** HOST; default 127.0.0.1 */
  host: string;
  /** PORT; default 8787 */
  port: number;
  /** DESK_LIBRARY_ROOT: unset → `.desk-library` in the working directory; set but empty → null (no root) */
  libraryRoot: string | null;
  /** DESK_TOKEN: one `editor` named `desk`; it or DESK_USERS_FILE is required for a non-loopback HOST */
  token: string | undefined;
  /** DESK_USERS_FILE, from the working directory: the users and their roles (docs/security.md); default none */
  usersFile: string | null;
  /** DESK_AUTH_PROXY_HEADER, DESK_TRUSTED_PROXIES and DESK_AUTH_PROXY_ROLE: a trusted auth proxy; default none */
  authProxy: AuthProxyOptions | null;
  /** LOG_LEVEL; default info */
  logLevel: LogLevel;
  /** DESK_ALLOWED_HOSTS, comma-separated extra host names; default none */
  allowedHosts: string[];
  /** DESK_LIBRARY_REMOTE: a URL, or a path (taken from the working directory) to a bare repository; default none */
  libraryRemote: string | null;
  /** DESK_SYNC_INTERVAL in seconds, between fetch-and-merge rounds with the remote; default 60 */
  syncInterval: number;
  /** DESK_AUTHOR, `Name <email>`: the committer of every history commit, and the author of those no user asked for (docs/history.md); default `desk <desk@HOSTNAME>` */
  author: string;
  /** DESK_DECIDED_KEEP: how many decided proposals stay in `proposals/` (the newest; docs/api.md, Proposals); default 1000 */
  decidedKeep: number;
  /** DESK_PROPOSALS_PER_HOUR: proposals one person (else one client address) may create in an hour; 0 for no limit; default 120 */
  proposalsPerHour: number;
  /** DESK_LAUNCHES_PER_HOUR: launch drafts one person (else one client address) may make in an hour; 0 for no limit; default 120 */
  launchesPerHour: number;
}

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;
export const DEFAULT_ROOT_DIR = '.desk-library';
export const DEFAULT_AUTHOR = 'desk <desk@localhost>';

/** DESK_AUTHOR's default names the machine, so two desks on one remote are told apart in its history. */
export function defaultAuthor(host = hostname()): string {
  const h = host.replace(/[^A-Za-z0-9.-]/g, '').replace(/^[.-]+|[.-]+$/g, '');
  return h ? `desk <desk@${h}>` : DEFAULT_AUTHOR;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Config {
  const host = env.HOST?.trim() || DEFAULT_HOST;
  const port = parsePort(env.PORT);
  const token = env.DESK_TOKEN?.trim() || undefined;
  const usersFile = env.DESK_USERS_FILE?.trim() ? resolve(cwd, env.DESK_USERS_FILE.trim()) : null;
  // either one is authentication: a users file names its people, DESK_TOKEN its one. Whether the file names
  // anyone is known only once it is read: server.ts refuses one that names nobody on such a HOST
  const refusal = usersFile === null ? checkListenAddress(host, token) : null;
  if (refusal) throw new ConfigError(refusal.replace('Set DESK_TOKEN,', 'Set DESK_TOKEN or DESK_USERS_FILE,'));
  const authProxy = parseAuthProxy(env);

  const rootVar = env.DESK_LIBRARY_ROOT;
  const libraryRoot =
    rootVar === undefined ? resolve(cwd, DEFAULT_ROOT_DIR) : rootVar.trim() === '' ? null : resolve(cwd, rootVar);

  const level = (env.LOG_LEVEL?.trim() || 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError(`LOG_LEVEL ${JSON.stringify(env.LOG_LEVEL)} is not one of ${LOG_LEVELS.join(', ')}`);
  }
  const allowedHosts = (env.DESK_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const { libraryRemote, syncInterval } = parseSync(env, cwd);
  if (libraryRemote !== null && libraryRoot === null) {
    throw new ConfigError('DESK_LIBRARY_REMOTE needs a library root to sync, but DESK_LIBRARY_ROOT is set and empty');
  }
  return {
    host,
    port,
    libraryRoot,
    token,
    usersFile,
    authProxy,
    logLevel: level as LogLevel,
    allowedHosts,
    libraryRemote,
    syncInterval,
    author: parseAuthor(env.DESK_AUTHOR),
    decidedKeep: parseCount(env, 'DESK_DECIDED_KEEP', DEFAULT_DECIDED_KEEP, 1, 1_000_000),
    proposalsPerHour: parseCount(env, 'DESK_PROPOSALS_PER_HOUR', DEFAULT_PROPOSALS_PER_HOUR, 0, 1_000_000),
    launchesPerHour: parseCount(env, 'DESK_LAUNCHES_PER_HOUR', DEFAULT_LAUNCHES_PER_HOUR, 0, 1_000_000),
  };
}

/** A whole number from `min` to `max`; unset or blank → `fallback`. */
function parseCount(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const v = env[name]?.trim();
  if (!v) return fallback;
  if (!/^\d{1,7}$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new ConfigError(`${name} ${JSON.stringify(env[name])} is not a whole number from ${min} to ${max}`);
  }
  return Number(v);
}

/** `Name <email>`, as git writes an author; a name of one line, an address without spaces or brackets. */
function parseAuthor(value: string | undefined): string {
  const author = value?.trim() || defaultAuthor();
  if (!/^[^<>\n]*[^<>\s][^<>\n]*<[^<>\s]+>$/.test(author)) {
    throw new ConfigError(`DESK_AUTHOR ${JSON.stringify(value)} is not \`Name <email>\` (like desk <desk@localhost>)`);
  }
  return author;
}

/**
 * DESK_AUTH_PROXY_HEADER names the header a trusted proxy names the user in;
 * it is honoured only from DESK_TRUSTED_PROXIES (addresses or CIDRs, comma
 * separated; required with it), and its user gets DESK_AUTH_PROXY_ROLE when
 * the users file does not list them (default viewer).
 */
function parseAuthProxy(env: Record<string, string | undefined>): AuthProxyOptions | null {
  const header = env.DESK_AUTH_PROXY_HEADER?.trim();
  if (!header) return null;
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(header)) throw new ConfigError(`DESK_AUTH_PROXY_HEADER ${JSON.stringify(header)} is not a header name`);
  if (header.toLowerCase() === 'authorization') throw new ConfigError('DESK_AUTH_PROXY_HEADER cannot be Authorization: that is where tokens go');
  const trusted = (env.DESK_TRUSTED_PROXIES ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (!trusted.length) throw new ConfigError('DESK_AUTH_PROXY_HEADER needs DESK_TRUSTED_PROXIES: the addresses or CIDRs of the proxy it is honoured from');
  const { bad } = trustedList(trusted);
  if (bad.length) throw new ConfigError(`DESK_TRUSTED_PROXIES: ${bad.map((b) => JSON.stringify(b)).join(', ')} is not an address or a CIDR`);
  const role = (env.DESK_AUTH_PROXY_ROLE?.trim() || 'viewer') as UserRole;
  if (!(USER_ROLES as readonly string[]).includes(role)) throw new ConfigError(`DESK_AUTH_PROXY_ROLE ${JSON.stringify(env.DESK_AUTH_PROXY_ROLE)} is not one of ${USER_ROLES.join(', ')}`);
  return { header, trusted, role };
}

export const DEFAULT_SYNC_INTERVAL = 60;

/** A URL (`scheme://…`) or scp-like `user@host:path` is git's to read; anything else is a path on this machine. */
function parseSync(env: Record<string, string | undefined>, cwd: string): Pick<Config, 'libraryRemote' | 'syncInterval'> {
  const remote = env.DESK_LIBRARY_REMOTE?.trim() || null;
  if (remote !== null) checkRemote(remote);
  const libraryRemote = remote === null || /^[a-z][a-z0-9+.-]*:\/\//i.test(remote) || /^[^/\s]+@[^/\s]+:/.test(remote) ? remote : resolve(cwd, remote);
  const v = env.DESK_SYNC_INTERVAL?.trim();
  if (!v) return { libraryRemote, syncInterval: DEFAULT_SYNC_INTERVAL };
  if (!/^\d{1,5}$/.test(v) || Number(v) < 1 || Number(v) > 86_400) {
    throw new ConfigError(`DESK_SYNC_INTERVAL ${JSON.stringify(env.DESK_SYNC_INTERVAL)} is not a whole number of seconds from 1 to 86400`);
  }
  return { libraryRemote, syncInterval: Number(v) };
}

/** The URL schemes git may reach a remote by (git.ts allows only their transports). */
const REMOTE_SCHEMES = ['file', 'ssh', 'https', 'git'] as const;

/**
 * DESK_LIBRARY_REMOTE names a repository, never a program (docs/security.md,
 * What git runs): no leading `-` (an option to a git without
 * `--end-of-options`), no `<transport>::` form (`ext::` runs the command it
 * names, `fd::` talks over the service's descriptors, any other calls a
 * remote helper), and a URL only of a scheme git.ts allows.
 */
function checkRemote(remote: string): void {
  const allowed = 'a path, file://, ssh://, git@host:path, https:// or git://';
  const refuse = (why: string) => {
    throw new ConfigError(`DESK_LIBRARY_REMOTE ${JSON.stringify(remote)} ${why}; it is ${allowed}`);
  };
  if (remote.startsWith('-')) refuse('starts with `-`');
  if (/^[A-Za-z0-9][A-Za-z0-9+.-]*::/.test(remote)) refuse('names a transport (`<transport>::`)');
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(remote)?.[1]?.toLowerCase();
  if (scheme !== undefined && !(REMOTE_SCHEMES as readonly string[]).includes(scheme)) refuse(`is a ${scheme}:// URL`);
  if (/[\0\r\n]/.test(remote)) refuse('holds a control character');
}

function parsePort(value: string | undefined): number {
  const v = value?.trim();
  if (!v) return DEFAULT_PORT;
  if (!/^\d{1,5}$/.test(v) || Number(v) > 65535) {
    throw new ConfigError(`PORT ${JSON.stringify(value)} is not a port number (0–65535)`);
  }
  return Number(v);
}
