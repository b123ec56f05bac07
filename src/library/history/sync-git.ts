import { execFile } from 'node:child_process';
import { join } from 'node:path';

/**
 * The git binary for sync (docs/history.md, Sync): fetch, push and the
 * plumbing that builds a merge commit. Never prompts (a remote that wants a
 * password fails at once instead of hanging a sync) and is cut off after
 * `timeoutMs`, so an unreachable remote costs one failed sync, never a stuck one.
 */
export interface GitResult {
  stdout: Buffer;
  stderr: string;
}

export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    readonly exitCode: number | null,
  ) {
    // the first line of git's own complaint says what went wrong; the rest is hints
    super(`git ${args[0]}: ${firstLine(stderr) || `exit ${exitCode}`}`);
  }
}

const firstLine = (s: string): string => s.split('\n').find((l) => l.trim() !== '' && !l.startsWith('hint:'))?.trim() ?? '';

export type Git = (args: readonly string[], opts?: { input?: Buffer | string; env?: Record<string, string>; signal?: AbortSignal }) => Promise<GitResult>;

/**
 * Git in the library root with an environment built from nothing, as the
 * commit queue runs it (git.ts): the root's own `.git`, no system, global or
 * user config. Default timeout 30 s: a fetch of a small library over a slow
 * link takes seconds.
 */
export function gitIn(cwd: string, timeoutMs = 30_000): Git {
  const gitDir = join(cwd, '.git');
  return (args, opts = {}) =>
    new Promise((resolve, reject) => {
      const child = execFile(
        'git',
        args as string[],
        {
          cwd,
          encoding: 'buffer',
          timeout: timeoutMs,
          killSignal: 'SIGKILL',
          ...(opts.signal ? { signal: opts.signal } : {}),
          maxBuffer: 64 * 1024 * 1024,
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            // the real home, for ~/.ssh; GIT_CONFIG_GLOBAL keeps its .gitconfig out
            HOME: process.env.HOME ?? gitDir,
            LC_ALL: 'C',
            GIT_DIR: gitDir,
            GIT_WORK_TREE: cwd,
            GIT_CONFIG_NOSYSTEM: '1',
            GIT_CONFIG_GLOBAL: '/dev/null',
            GIT_TERMINAL_PROMPT: '0',
            // ssh keys and agent still work; a host that would ask anything fails instead
            GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes',
            ...(process.env.SSH_AUTH_SOCK ? { SSH_AUTH_SOCK: process.env.SSH_AUTH_SOCK } : {}),
            ...opts.env,
          },
        },
        (err, stdout, stderr) => {
          const errText = stderr.toString('utf8');
          if (err) {
            const code = typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : null;
            reject(new GitError(args, errText || err.message, code));
          } else resolve({ stdout, stderr: errText });
        },
      );
      if (opts.input !== undefined) child.stdin?.end(opts.input);
    });
}

/** stdout as one trimmed line, for rev-parse and friends. */
export async function gitLine(git: Git, args: readonly string[]): Promise<string> {
  return (await git(args)).stdout.toString('utf8').trim();
}
