/**
 * Every process a test starts is killed, whatever happens to the test.
 *
 * `spawnChild` starts the child as the leader of its own process group
 * (`detached: true`), so one `process.kill(-pid, 'SIGKILL')` also takes down
 * anything it started. Live children are kept in a set and killed:
 * - after every test file, by test/child-guard.ts (a setup file), so a test
 *   that timed out or threw leaves nothing behind, and a timed-out test body
 *   still running cannot start another;
 * - when this worker exits, and when vitest stops it with SIGTERM (a signal
 *   skips 'exit' handlers, so that one is caught separately);
 * - as a last resort by the global teardown (test/global-setup.ts), which
 *   reads a registry folder shared with the workers: a worker killed with
 *   SIGKILL runs no code of its own.
 * The registry folder is named after the vitest main process (the workers'
 * parent), so both sides find it without passing anything along.
 *
 * `runSync` is spawnSync with a deadline: a child that hangs is killed rather
 * than holding the worker forever.
 */
import { type ChildProcess, type SpawnOptions, type SpawnSyncOptions, type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const live = new Set<ChildProcess>();

/** The registry folder of the vitest run whose main process is `mainPid`. */
export const registryDir = (mainPid: number): string => join(tmpdir(), `desk-test-children-${mainPid}`);

/** Field 22 of /proc/<pid>/stat: when the process started, so a reused pid is never killed. Null off Linux or once gone. */
function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** Set once the test file is over: a test body vitest timed out may still be running, and must not start anything more. */
let closed = false;

let guarded = false;
function guardWorker(): void {
  if (guarded) return;
  guarded = true;
  process.on('exit', killChildren);
  process.once('SIGTERM', () => {
    killChildren();
    // then die of SIGTERM as the worker would have without this handler
    process.kill(process.pid, 'SIGTERM');
  });
}

/** Like `spawn`, but the child leads its own process group and is always killed (see above). */
export function spawnChild(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  guardWorker();
  if (closed) throw new Error(`${command} not started: this test file is over (a test that timed out is still running)`);
  const child = spawn(command, args, { ...options, detached: true });
  const pid = child.pid;
  if (pid === undefined) return child; // failed to start: 'error' follows, nothing to kill
  live.add(child);
  const dir = registryDir(process.ppid);
  const entry = join(dir, String(pid));
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(entry, startTime(pid) ?? '');
  } catch {
    // the in-process guards still hold
  }
  child.once('exit', () => {
    live.delete(child);
    // anything the child started is in its group and dies with it
    killGroup(pid);
    rmSync(entry, { force: true });
  });
  return child;
}

/** SIGKILL to the child's whole process group; safe to call twice or after it exited. */
export function killChild(child: ChildProcess): void {
  if (child.pid !== undefined && live.has(child)) killGroup(child.pid);
}

/** Kill every child this worker started that is still running. Synchronous, so it works in an 'exit' handler. */
export function killChildren(): void {
  for (const child of live) killChild(child);
}

/** The setup file's hooks: open before a test file, closed (and every child killed) after it. */
export function openChildren(): void {
  closed = false;
}
export function closeChildren(): void {
  closed = true;
  killChildren();
}

/** The global teardown's sweep: every child registered by a worker of the run `mainPid` that still runs. Returns how many. */
export function sweepRegistry(mainPid: number): number {
  const dir = registryDir(mainPid);
  let killed = 0;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const pid = Number(name);
    const recorded = readFileSync(join(dir, name), 'utf8');
    const now = startTime(pid);
    // only the process we recorded: same pid and, where /proc tells, same start time
    if (Number.isInteger(pid) && pid > 0 && now !== null && (recorded === '' || recorded === now)) {
      killGroup(pid);
      killed++;
    }
  }
  rmSync(dir, { recursive: true, force: true });
  return killed;
}

/** spawnSync with a deadline (default two minutes) after which the child is SIGKILLed. */
export function runSync(command: string, args: readonly string[], options: SpawnSyncOptions & { encoding: BufferEncoding }): SpawnSyncReturns<string> {
  return spawnSync(command, args, { timeout: 120_000, killSignal: 'SIGKILL', ...options });
}
