import { readFileSync, readlinkSync } from 'node:fs';

/**
 * Who holds the root lock (root-lock.ts). `pid`, `host` and `started` are for
 * people: the refusal message names them. `boot`, `pidns` and `pidStart`
 * (Linux only) let a starter on the same machine tell that the holder is
 * certainly gone without waiting for the lock to go stale — the common
 * restart after a crash, outside a container. They are only trusted within
 * one boot and one PID namespace: a restarted container has a new PID
 * namespace, where the old "PID 1" means nothing, and waits for the stale
 * bound instead.
 */
export interface LockHolder {
  pid: number;
  host: string;
  started: string;
  /** /proc/sys/kernel/random/boot_id */
  boot?: string;
  /** the /proc/self/ns/pid link, e.g. `pid:[4026531836]` */
  pidns?: string;
  /** field 22 of /proc/<pid>/stat: clock ticks from boot to the process's start */
  pidStart?: string;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

export function parseHolder(text: string): LockHolder | null {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.host === 'string' && typeof v.started === 'string') {
      const { boot, pidns, pidStart } = { boot: str(v.boot), pidns: str(v.pidns), pidStart: str(v.pidStart) };
      return { pid: v.pid, host: v.host, started: v.started, ...(boot && pidns && pidStart ? { boot, pidns, pidStart } : {}) };
    }
  } catch {
    // fall through: malformed (a lock cut short by a power loss); the lease still applies
  }
  return null;
}

/** The start time of a process, or null when it cannot be read (no such process, not Linux, hidden by hidepid). */
function startTime(pid: number | 'self'): string | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) is in parentheses and may hold spaces; fields from 3 on follow the last ')'
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** This machine's facts for a lock holder: its boot, PID namespace and start time; empty where /proc is not Linux's. */
export type ProcessIdentity = Pick<LockHolder, 'boot' | 'pidns' | 'pidStart'>;

/**
 * This process's identity, read from /proc at each call: the lock's taker
 * (root-lock.ts) reads it once per acquisition and passes it down, so nothing
 * is cached here.
 */
export function processIdentity(): ProcessIdentity {
  try {
    const pidStart = startTime('self');
    return pidStart ? { boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), pidns: readlinkSync('/proc/self/ns/pid'), pidStart } : {};
  } catch {
    return {};
  }
}

/**
 * True only when the holder ran in this boot and this PID namespace and its
 * PID is now free or another process's (a different start time). Anything
 * else — another machine, a container since recreated, a holder from an
 * earlier version, a process of another user — is left to the stale bound.
 */
export function certainlyDead(h: LockHolder | null, me: ProcessIdentity): boolean {
  if (!h?.boot || !me.boot || h.boot !== me.boot || h.pidns !== me.pidns) return false;
  try {
    process.kill(h.pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
  const start = startTime(h.pid);
  return start !== null && start !== h.pidStart;
}
