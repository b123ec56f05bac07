import { gitDirOf } from '../layout.js';
import type { GitSpawner } from './spawner.js';

/**
 * The one way this service runs git (docs/history.md; docs/operations.md,
 * What git sees): history's commits and reads, sync's fetch, merge and push,
 * and the start's checks all go through `gitAt`. The binary through
 * execFile, never a shell, started by a small helper process (spawner.ts),
 * with the same fixed settings on every call:
 *
 * - `GIT_DIR` and `GIT_WORK_TREE` name the root's own `.git`: no discovery,
 *   so a root inside another repository never commits into that one;
 * - an environment built from nothing but GIT_PASS_THROUGH (below), with
 *   `GIT_CONFIG_NOSYSTEM` and `GIT_CONFIG_GLOBAL=/dev/null`: no system,
 *   global or user config (hooks paths, aliases, signing, `core.autocrlf`
 *   and friends stay out), and no `GIT_*` of the host's steering git;
 * - `-c` settings that win over the repository's own `.git/config`, which
 *   anyone who can write the root could edit: no hooks, no fsmonitor (each
 *   would run a program of that config's choosing), no attributes or ignore
 *   file from the home folder;
 * - `-c core.fsync=committed,index -c core.fsyncMethod=fsync`: objects, refs
 *   and the index are flushed before git reports success, so a commit that
 *   answered survives a power loss like the files it records;
 * - `-c gc.auto=0 -c maintenance.auto=false`: git never starts a `gc` or a
 *   `maintenance run` of its own (a fetch would, after each one), which could
 *   outlive the service, hold locks at a kill and compete with saves for the
 *   CPU; the queue runs `gc --auto` itself, in its turn (commit-queue.ts);
 * - `LC_ALL=C`, `core.quotePath=false`: output and messages this code can parse;
 * - never a prompt: a remote that wants a password fails at once, and no
 *   credential helper or askpass program the repository's config names runs;
 * - transports by an allow list (`protocol.allow=never`, then file, ssh,
 *   https and git allowed): `ext::` would run any command its URL names and
 *   `fd::` would talk over the service's own descriptors, so neither runs,
 *   even for a remote rewritten by a `url.*.insteadOf` of the repository's
 *   config; both are named `never` too, since a `protocol.<name>.allow` of
 *   that config would otherwise win over `protocol.allow`;
 * - `transfer.fsckObjects`: a fetch checks every object it receives and
 *   refuses a tree with a `..`, `.git` or `.gitmodules` trap; what fsck
 *   lets through (a link, a submodule) sync checks itself (sync/round.ts, hostilePaths);
 * - no call that could run a clean or smudge filter or a textconv from
 *   `.gitattributes`: commits are built from bytes (fast-import), the index
 *   from ids (update-index --index-info, repo.ts indexToHead), and nothing checks files
 *   out or hashes the work tree (docs/security.md, What git runs).
 */

/**
 * The variables of the service's own environment git is given, by name; every
 * other one is left out, whatever it is (`GIT_DIR`, `GIT_CONFIG_PARAMETERS`,
 * `GIT_EXEC_PATH`… set on the host never reach git). docs/operations.md lists
 * them for operators.
 *
 * - `PATH`: to find git and, for an ssh remote, ssh;
 * - `HOME`: credentials a remote reads from the home folder (curl's
 *   `~/.netrc` for https, what an ssh wrapper keeps there). git's own config
 *   from it stays out (`GIT_CONFIG_GLOBAL=/dev/null`), and so do the
 *   attributes and ignore files it would find under `~/.config/git`
 *   (`core.attributesFile`, `core.excludesFile` below);
 * - `SSH_AUTH_SOCK`, `GIT_SSH_COMMAND`, `GIT_SSH`: the ssh agent and the ssh
 *   command the operator chose (default `ssh -o BatchMode=yes`: a host that
 *   would ask anything fails instead of waiting);
 * - the proxy variables, as curl reads them, for an https remote behind a proxy.
 *
 * `LC_ALL` and `LANG` are not passed: they are `C`, so git's messages are the
 * ones sync.ts matches.
 */
export const GIT_PASS_THROUGH = [
  'PATH',
  'HOME',
  'SSH_AUTH_SOCK',
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'http_proxy',
  'https_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'no_proxy',
  'NO_PROXY',
  'all_proxy',
  'ALL_PROXY',
] as const;

/**
 * Where `core.hooksPath` points: `/dev/null`, a file, so git finds no hook
 * in it (looking inside a file fails) and nobody can put one there. A folder
 * in the root's git dir was tried: whoever can write the repository's
 * config, which is who these settings guard against, can write hooks into
 * that folder too.
 */
const NO_HOOKS = '/dev/null';

export interface GitResult {
  /** git's exit code; null when it did not exit on its own (see `cut`) */
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** why git was stopped: the runner's timeout, the caller's signal, or a signal from elsewhere */
  cut?: 'timeout' | 'aborted' | NodeJS.Signals;
}

export interface GitOptions {
  /** written to git's stdin, then closed */
  input?: string | Buffer;
  /** extra `GIT_*` variables (an index file of its own, say); win over the fixed ones */
  env?: { [name: `GIT_${string}`]: string };
  /** run at a lower CPU priority (nice 10): the commit queue's work yields to the saves it follows */
  background?: boolean;
  /** stops git (SIGKILL) when aborted: sync cuts a fetch or push when the service stops */
  signal?: AbortSignal;
  /** stops git (SIGKILL) after this long; default the runner's (none unless gitAt was given one) */
  timeoutMs?: number;
}

export interface GitAtOptions {
  /** what starts the processes (spawner.ts): the library's, closed with it */
  spawner: GitSpawner;
  /** the git binary; default `git` on PATH */
  bin?: string;
  /** where GIT_PASS_THROUGH's values come from; default process.env */
  env?: NodeJS.ProcessEnv;
  /** every call's default timeout in ms; default none */
  timeoutMs?: number;
}

/** git could not be run at all (not installed, not on PATH). */
export class GitMissingError extends Error {
  override readonly name = 'GitMissingError';
}

/** git ran and failed, or was stopped: its exit code (null when stopped) and what it wrote to stderr. */
export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(
    readonly args: readonly string[],
    readonly result: GitResult,
  ) {
    super(`git ${subcommand(args)} ${result.code === null ? `was stopped (${result.cut ?? 'killed'})` : `exited ${result.code}`}${complaint(result.stderr)}`);
  }

  get exitCode(): number | null {
    return this.result.code;
  }

  get stderr(): string {
    return this.result.stderr;
  }
}

/** The subcommand, past any `-c name=value` of the caller's own. */
const subcommand = (args: readonly string[]): string => {
  let i = 0;
  while (args[i] === '-c') i += 2;
  return args[i] ?? '';
};

/** The first line of git's own complaint says what went wrong; the rest is hints. */
const complaint = (stderr: string): string => {
  const line = stderr.split('\n').find((l) => l.trim() !== '' && !l.startsWith('hint:'));
  return line ? `: ${line.trim()}` : '';
};

const config = (hooks: string): string[] =>
  [
    'core.fsync=committed,index',
    'core.fsyncMethod=fsync',
    'gc.auto=0',
    'maintenance.auto=false',
    `core.hooksPath=${hooks}`,
    'core.fsmonitor=false',
    'core.attributesFile=/dev/null',
    'core.excludesFile=/dev/null',
    'core.quotePath=false',
    'core.autocrlf=false',
    'commit.gpgSign=false',
    'advice.detachedHead=false',
    'credential.helper=',
    'core.askPass=',
    'protocol.allow=never',
    'protocol.file.allow=always',
    'protocol.ssh.allow=always',
    'protocol.https.allow=always',
    'protocol.git.allow=always',
    'protocol.ext.allow=never',
    'protocol.fd.allow=never',
    'transfer.fsckObjects=true',
    'fetch.fsckObjects=true',
  ].flatMap((kv) => ['-c', kv]);

export interface Git {
  readonly root: string;
  readonly gitDir: string;
  /** exit code and output; throws only GitMissingError (or when git cannot be started at all) */
  run(args: readonly string[], options?: GitOptions): Promise<GitResult>;
  /** stdout as text; a non-zero exit (or a stop) throws GitError */
  ok(args: readonly string[], options?: GitOptions): Promise<string>;
  /** stdout as bytes (a blob); a non-zero exit throws GitError */
  bytes(args: readonly string[], options?: GitOptions): Promise<Buffer>;
  /** stdout as one trimmed line, for rev-parse and friends; a non-zero exit throws GitError */
  line(args: readonly string[], options?: GitOptions): Promise<string>;
}

/** The operator's ssh command: GIT_SSH_COMMAND, else GIT_SSH (a program, quoted for the shell git runs the command with), else batch-mode ssh. */
function sshCommand(env: NodeJS.ProcessEnv): string {
  if (env.GIT_SSH_COMMAND !== undefined) return env.GIT_SSH_COMMAND;
  if (env.GIT_SSH !== undefined) return `'${env.GIT_SSH.replace(/'/g, `'\\''`)}'`;
  return 'ssh -o BatchMode=yes';
}

/** The environment every git process gets: the named pass-through variables, then the fixed ones. */
function gitEnv(root: string, baseEnv: NodeJS.ProcessEnv = process.env, extra: GitOptions['env'] = {}): NodeJS.ProcessEnv {
  const gitDir = gitDirOf(root);
  const passed: NodeJS.ProcessEnv = {};
  for (const name of GIT_PASS_THROUGH) if (baseEnv[name] !== undefined) passed[name] = baseEnv[name];
  return {
    ...passed,
    PATH: baseEnv.PATH ?? '/usr/bin:/bin',
    // ssh keys and agent still work; a host that would ask anything fails instead. Always set, since
    // GIT_SSH_COMMAND wins over a `core.sshCommand` of the repository's config, and GIT_SSH would not
    GIT_SSH_COMMAND: sshCommand(baseEnv),
    LC_ALL: 'C',
    LANG: 'C',
    GIT_DIR: gitDir,
    GIT_WORK_TREE: root,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    ...extra,
  };
}

export function gitAt(root: string, o: GitAtOptions): Git {
  const bin = o.bin ?? 'git';
  const baseEnv = o.env ?? process.env;
  const gitDir = gitDirOf(root);
  const run = async (args: readonly string[], options: GitOptions = {}): Promise<GitResult> => {
    const timeout = options.timeoutMs ?? o.timeoutMs ?? 0;
    const { error: e, stdout, stderr } = await o.spawner.run({
      bin,
      args: [...config(NO_HOOKS), ...args],
      cwd: root,
      env: gitEnv(root, baseEnv, options.env),
      input: options.input,
      maxBuffer: 256 * 1024 * 1024,
      timeout,
      background: options.background ?? false,
      signal: options.signal,
    });
    const text = stderr.toString('utf8');
    if (e?.name === 'AbortError') return { code: null, stdout, stderr: text, cut: 'aborted' };
    if (e && typeof e.code === 'string') {
      if (e.code === 'ENOENT') throw new GitMissingError(`${bin} was not found on PATH`);
      throw Object.assign(new Error(e.message), { code: e.code });
    }
    if (e && (e.code === null || e.code === undefined) && e.signal) return { code: null, stdout, stderr: text, cut: e.killed && timeout > 0 ? 'timeout' : e.signal };
    return { code: e ? Number(e.code ?? 1) : 0, stdout, stderr: text };
  };
  const bytes = async (args: readonly string[], options?: GitOptions): Promise<Buffer> => {
    const r = await run(args, options);
    if (r.code !== 0) throw new GitError(args, r);
    return r.stdout;
  };
  return {
    root,
    gitDir,
    run,
    bytes,
    ok: async (args, options) => (await bytes(args, options)).toString('utf8'),
    line: async (args, options) => (await bytes(args, options)).toString('utf8').trim(),
  };
}

/** The bytes of `path` in `commit`, or null when the commit does not hold it (or there is no commit). */
export async function blobAt(git: Git, commit: string | null, path: string): Promise<Buffer | null> {
  if (commit === null) return null;
  try {
    return await git.bytes(['cat-file', 'blob', `${commit}:${path}`]);
  } catch {
    return null;
  }
}
