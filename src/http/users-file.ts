/**
 * Reading the users file (DESK_USERS_FILE) without trusting what the path
 * names. It is opened O_RDONLY|O_NONBLOCK — links followed, as a Kubernetes
 * secret mount is a chain of them — and judged by fstat on the open handle,
 * before a byte is read: only a regular file of at most USERS_FILE_CAP is
 * read. A FIFO opens at once instead of waiting for a writer (a reload that
 * waited would hold a thread-pool worker for ever, and saves share that
 * pool), and a link to /dev/zero or any other device is never read.
 *
 * Each answer is the text or why not, never a throw: the start refuses with
 * the reason, a reload keeps the users it has and logs it.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { oddType } from '../library/index.js';

/** The most the users file may hold: some thousands of users, far past any team's. */
export const USERS_FILE_CAP = 1024 * 1024;

export type UsersFileRead = { text: string } | { why: string };

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

function judge(stat: { size: number; isFile(): boolean; isFIFO(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): string | null {
  const odd = oddType(stat);
  if (odd !== null) return `${odd === 'a FIFO (not read)' ? 'a FIFO' : odd}, not a regular file`;
  return stat.size > USERS_FILE_CAP ? `${stat.size} bytes, over the cap of ${USERS_FILE_CAP}` : null;
}

const failed = (e: unknown): { why: string } => ({ why: (e as NodeJS.ErrnoException).code ?? (e as Error).message });

/**
 * Reads at most one byte past the cap, whatever the stat said: a file
 * that grows between the stat and the read is refused, not read on.
 */
function decode(buf: Buffer, n: number): UsersFileRead {
  if (n > USERS_FILE_CAP) return { why: `over the cap of ${USERS_FILE_CAP} bytes` };
  return { text: buf.subarray(0, n).toString('utf8') };
}

/** At the start, before anything else runs: synchronous. */
export function readUsersFileSync(file: string): UsersFileRead {
  let fd: number | undefined;
  try {
    fd = openSync(file, FLAGS);
    const why = judge(fstatSync(fd));
    if (why) return { why };
    const buf = Buffer.alloc(USERS_FILE_CAP + 1);
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
    return decode(buf, n);
  } catch (e) {
    return failed(e);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** On a reload (SIGHUP, a change seen by the watch). */
export async function readUsersFile(file: string): Promise<UsersFileRead> {
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(file, FLAGS);
    const why = judge(await fh.stat());
    if (why) return { why };
    const buf = Buffer.alloc(USERS_FILE_CAP + 1);
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    return decode(buf, n);
  } catch (e) {
    return failed(e);
  } finally {
    await fh?.close().catch(() => {});
  }
}
