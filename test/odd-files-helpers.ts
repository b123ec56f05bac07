/**
 * Shared by test/odd-files-*.test.ts: files an operator might place by hand
 * (FIFOs, links, huge sparse files) and a logger that keeps what it was told.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { LibraryLogger } from '../src/library/context.js';
import { spawnChild } from './children.js';

/** A FIFO at `path` (mkfifo(1): Node has no mkfifo). */
export function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

export interface FifoWatch {
  /** true when something opened the FIFO for reading and waited for a writer (the hang) */
  readerWaited(): boolean;
  stop(): void;
}

/**
 * Releases a reader stuck in open(2) on a FIFO, so a test of the hang fails
 * instead of hanging the runner: a shell of its own opens the FIFO for
 * writing after `afterSeconds` — which only returns once a reader has it
 * open — and creates `<flag>` before it closes, so the stuck reader then
 * sees EOF and the test sees the flag. A library that never waits on the
 * FIFO (open with O_NONBLOCK, fstat, close) leaves the shell blocked on its
 * open with no reader, and stop() kills it. The delay is not a measured
 * duration: anything that has not waited by then has not waited at all.
 */
export function watchFifo(path: string, afterSeconds = 4): FifoWatch {
  const flag = `${path}.reader-waited`;
  // spawnChild: also killed if the worker dies before stop() runs (a shell left blocked on the FIFO would stay)
  const child: ChildProcess = spawnChild('sh', ['-c', 'sleep "$1"; exec 3>"$0"; : > "$2"', path, String(afterSeconds), flag], {
    stdio: 'ignore',
  });
  return {
    readerWaited: () => existsSync(flag),
    stop: () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  obj: Record<string, unknown>;
  msg: string;
}

/** A LibraryLogger that keeps every line. */
export function keepLog(): { logger: LibraryLogger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (obj: object, msg: string) => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  return { logger: { info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

/** The warn lines whose fields mention `text` (a path under the root). */
export function warnsAbout(lines: LogLine[], text: string): LogLine[] {
  return lines.filter((l) => l.level === 'warn' && JSON.stringify(l.obj).includes(text));
}
