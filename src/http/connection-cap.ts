/**
 * How many connections the server holds at once (docs/operations.md,
 * Limits): the process's soft limit of open files, less what the library
 * needs for its own. Past the limit every open fails with EMFILE — a read of
 * a record, a git spawn, the log — so idle keep-alive sockets, long-polls
 * (`?wait=`) and event streams must never use it all up; past the cap node
 * closes a new connection at once and the files already open stay served.
 *
 *   maxConnections = limit − min(256, ⌊limit / 2⌋)
 *
 * 256 descriptors are kept back for the library (the root lock, records and
 * templates read and written a few at a time, git's pipes, the users file,
 * the watchers) and node's own (stdio, epoll, the thread pool's). A small
 * limit keeps half back instead. The limit is the "Max open files" soft
 * limit of /proc/self/limits; where that cannot be read (not Linux, no
 * /proc), 1024, the usual default soft limit.
 */
import { readFileSync } from 'node:fs';

export const FALLBACK_OPEN_FILES = 1024;
/** descriptors kept back for the library and node, at most */
export const RESERVED_FILES = 256;

/** The soft "Max open files" limit from the text of /proc/self/limits; null when absent, unlimited or not a number. */
export function openFilesLimit(limitsText: string): number | null {
  const line = limitsText.split('\n').find((l) => l.startsWith('Max open files'));
  // columns are padded with spaces: name, soft, hard, units
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  return soft !== undefined && /^\d{1,10}$/.test(soft) && Number(soft) > 0 ? Number(soft) : null;
}

/** The connection cap for a limit of `openFiles` descriptors (the formula above); at least 1. */
export function connectionCap(openFiles: number): number {
  return Math.max(1, openFiles - Math.min(RESERVED_FILES, Math.floor(openFiles / 2)));
}

/** The cap for this process, and the limit it came from. */
export function processConnectionCap(limitsPath = '/proc/self/limits'): { maxConnections: number; openFiles: number; fromProc: boolean } {
  let limit: number | null = null;
  try {
    limit = openFilesLimit(readFileSync(limitsPath, 'utf8'));
  } catch {
    // no /proc: the fallback below
  }
  const openFiles = limit ?? FALLBACK_OPEN_FILES;
  return { maxConnections: connectionCap(openFiles), openFiles, fromProc: limit !== null };
}
