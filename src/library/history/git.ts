import { execFile } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';

/**
 * The one way this service runs git (docs/history.md): the binary through
 * execFile, never a shell, with an environment built from nothing so the
 * operator's or the host's configuration cannot change what a commit is:
 *
 * - `GIT_DIR` and `GIT_WORK_TREE` name the root's own `.git`: no discovery,
 *   so a root inside another repository never commits into that one;
 * - `GIT_CONFIG_NOSYSTEM` and `GIT_CONFIG_GLOBAL=/dev/null`, `HOME` pointed
 *   at the repository: no system, global or user config (hooks paths,
 *   aliases, signing, `core.autocrlf` and friends stay out);
 * - `-c core.fsync=committed,index -c core.fsyncMethod=fsync`: objects, refs
 *   and the index are flushed before git reports success, so a commit that
 *   answered survives a power loss like the files it records;
 * - `-c gc.auto=0`: git never starts a detached `gc` of its own, which could
 *   outlive the service, hold locks at a kill and compete with saves for the
 *   CPU; the queue runs `gc --auto` itself, in its turn (commit-queue.ts);
 * - `LC_ALL=C`, `core.quotePath=false`: output this code can parse.
 */

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

export interface GitOptions {
  /** written to git's stdin, then closed */
  input?: string | Buffer;
  /** extra environment (author, dates); wins over the fixed one */
  env?: Record<string, string>;
  /** run at a lower CPU priority (nice 10): the commit queue's work yields to the saves it follows */
  background?: boolean;
}

/** git could not be run at all (not installed, not on PATH). */
export class GitMissingError extends Error {
  override readonly name = 'GitMissingError';
}

/** git ran and failed. */
export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(
    readonly args: readonly string[],
    readonly result: GitResult,
  ) {
    super(`git ${args.slice(0, 2).join(' ')} exited ${result.code}: ${result.stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
  }
}

const CONFIG = ['-c', 'core.fsync=committed,index', '-c', 'core.fsyncMethod=fsync', '-c', 'gc.auto=0', '-c', 'core.quotePath=false', '-c', 'core.autocrlf=false', '-c', 'commit.gpgSign=false', '-c', 'core.hooksPath=/dev/null', '-c', 'advice.detachedHead=false'];

export interface Git {
  readonly root: string;
  readonly gitDir: string;
  /** exit code and output; throws only GitMissingError */
  run(args: readonly string[], options?: GitOptions): Promise<GitResult>;
  /** stdout as text; a non-zero exit throws GitError */
  ok(args: readonly string[], options?: GitOptions): Promise<string>;
  /** the fixed environment, for helpers that run git themselves (sync) */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
}

export function gitAt(root: string, bin = 'git', baseEnv: NodeJS.ProcessEnv = process.env): Git {
  const gitDir = join(root, '.git');
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    PATH: baseEnv.PATH ?? '/usr/bin:/bin',
    HOME: gitDir,
    LC_ALL: 'C',
    GIT_DIR: gitDir,
    GIT_WORK_TREE: root,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    ...extra,
  });
  const run = (args: readonly string[], options: GitOptions = {}): Promise<GitResult> =>
    new Promise((resolve, reject) => {
      const child = execFile(
        bin,
        [...CONFIG, ...args],
        { cwd: root, env: env(options.env), encoding: 'buffer', maxBuffer: 256 * 1024 * 1024, windowsHide: true },
        (err, stdout, stderr) => {
          const e = err as (NodeJS.ErrnoException & { code?: string | number }) | null;
          if (e && typeof e.code === 'string') {
            reject(e.code === 'ENOENT' ? new GitMissingError(`${bin} was not found on PATH`) : e);
            return;
          }
          resolve({ code: e ? Number(e.code ?? 1) : 0, stdout, stderr: stderr.toString('utf8') });
        },
      );
      if (options.background && child.pid !== undefined) {
        try {
          setPriority(child.pid, 10);
        } catch {
          // not permitted, or already gone: it runs at the normal priority
        }
      }
      // a git that exits before reading its stdin must not crash the service with EPIPE
      child.stdin?.on('error', () => {});
      if (options.input !== undefined) child.stdin?.end(options.input);
      else child.stdin?.end();
    });
  return {
    root,
    gitDir,
    run,
    async ok(args, options) {
      const r = await run(args, options);
      if (r.code !== 0) throw new GitError(args, r);
      return r.stdout.toString('utf8');
    },
    env,
  };
}
