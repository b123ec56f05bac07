import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Where git processes are started from: a small helper process of our own
 * (one per open library, started at its first git call), not the service
 * itself.
 *
 * Why: Node starts a child with fork() then exec(), and fork() copies the
 * page tables of the whole process, synchronously, on the service's only
 * thread. At the RSS of a library of 10,000 templates (about 200 MB) each
 * git process took 6-11 ms of the service's CPU, fork and the copy-on-write
 * faults after it, every request waiting meanwhile (bench/RESULTS.md, "git
 * from a helper"); the history of a stream of saves starts three per batch.
 * The helper is a bare Node of about 60 MB that runs nothing else, so its
 * forks are cheaper, and they happen on its own thread: the service only
 * passes a message (about 1-2 ms).
 *
 * The helper is given its code inline (`node -e`), so the same file works
 * from the compiled build and from the sources the tests run. It runs each
 * request with execFile exactly as the service did (same options), and
 * answers with what execFile's callback got. It ignores SIGINT, SIGTERM and
 * SIGHUP, so a Ctrl-C or a service manager's SIGTERM sent to the whole group
 * leaves the service able to land its last commits while it stops; it exits
 * when the library closes, or when the service does (its IPC channel closes,
 * even at a SIGKILL). Its channel holds the service's event loop only while
 * a request is pending.
 */

/** What execFile's callback got, as the helper passes it back. */
export interface Ran {
  error: { name: string; message: string; code: string | number | null; signal: NodeJS.Signals | null; killed: boolean } | null;
  stdout: Buffer;
  stderr: Buffer;
}

export interface RunRequest {
  bin: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  input?: string | Buffer | undefined;
  maxBuffer: number;
  timeout: number;
  /** nice 10 for the started process */
  background: boolean;
  signal?: AbortSignal | undefined;
}

/** The helper's program: plain CommonJS, run by `node -e`. */
const HELPER = `
process.title = 'desk-library git';
const { execFile } = require('node:child_process');
const { setPriority } = require('node:os');
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => {});
process.on('disconnect', () => process.exit(0));
const running = new Map();
const answer = (id, error, stdout, stderr) => {
  if (!process.connected) return;
  const e = error && { name: String(error.name), message: String(error.message), code: error.code ?? null, signal: error.signal ?? null, killed: !!error.killed };
  process.send({ id, error: e, stdout, stderr });
};
process.on('message', (m) => {
  if (m.kill !== undefined) return void running.get(m.kill)?.abort();
  const stop = new AbortController();
  let child;
  try {
    child = execFile(m.bin, m.args, { cwd: m.cwd, env: m.env, encoding: 'buffer', maxBuffer: m.maxBuffer, windowsHide: true, timeout: m.timeout, killSignal: 'SIGKILL', signal: stop.signal }, (error, stdout, stderr) => {
      running.delete(m.id);
      answer(m.id, error, stdout, stderr);
    });
  } catch (error) {
    return void answer(m.id, error, Buffer.alloc(0), Buffer.alloc(0));
  }
  running.set(m.id, stop);
  if (m.background && child.pid !== undefined) {
    try { setPriority(child.pid, 10); } catch {}
  }
  child.stdin?.on('error', () => {});
  if (m.input !== undefined) child.stdin?.end(m.input);
  else child.stdin?.end();
});
`;

/** A Uint8Array as a Buffer over the same memory (the channel's deserializer may hand back either). */
const asBuffer = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** One helper process and the requests it has not answered. */
class Helper {
  private readonly pending = new Map<number, (r: Ran | Error) => void>();
  private next = 1;
  private closing = false;
  readonly child: ChildProcess;

  constructor(onGone: (h: Helper) => void) {
    const env = { ...process.env };
    // the operator's Node options (a --require, a profiler) are for the service, not its helper
    delete env.NODE_OPTIONS;
    this.child = spawn(process.execPath, ['-e', HELPER], { cwd: '/', env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced', windowsHide: true });
    this.child.unref();
    this.idle();
    this.child.on('message', (m: { id: number; error: Ran['error']; stdout: Uint8Array; stderr: Uint8Array }) => {
      const done = this.pending.get(m.id);
      if (!done) return;
      this.pending.delete(m.id);
      this.idle();
      done({ error: m.error, stdout: asBuffer(m.stdout), stderr: asBuffer(m.stderr) });
    });
    const gone = (why: string) => {
      onGone(this);
      const waiting = [...this.pending.values()];
      this.pending.clear();
      // whether git ran is unknown: the caller sees a failed git, as when git itself is killed
      for (const done of waiting) done(new Error(`the helper that starts git stopped (${why}); try again`));
    };
    this.child.on('error', (e) => gone(e.message));
    this.child.on('exit', (code, signal) => gone(signal ?? `exit ${code}`));
  }

  /** With nothing awaited, the channel does not hold the event loop, and a closing helper is let go. */
  private idle(): void {
    if (this.pending.size > 0) return;
    if (this.closing && this.child.connected) this.child.disconnect();
    else this.child.channel?.unref();
  }

  /** Ends the helper once its last answer is in (it exits when its channel closes). */
  close(): void {
    this.closing = true;
    this.idle();
  }

  run(r: RunRequest): Promise<Ran> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const onAbort = () => this.child.connected && this.child.send({ kill: id });
      this.pending.set(id, (x) => {
        r.signal?.removeEventListener('abort', onAbort);
        if (x instanceof Error) reject(x);
        else resolve(x);
      });
      this.child.channel?.ref();
      const { signal: _signal, ...message } = r;
      this.child.send({ id, ...message }, (e) => {
        if (!e) return;
        const done = this.pending.get(id);
        this.pending.delete(id);
        this.idle();
        done?.(new Error(`the helper that starts git did not take the request (${e.message}); try again`));
      });
      r.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * What starts the git processes of one library (its history and its sync
 * share it): the helper, started at the first run and again after it has
 * gone (killed, say), until close().
 */
export class GitSpawner {
  private helper: Helper | null = null;
  private closed = false;

  run(r: RunRequest): Promise<Ran> {
    if (this.closed) return Promise.reject(new Error('the library is closed: git is not run'));
    if (r.signal?.aborted) {
      const error = { name: 'AbortError', message: 'The operation was aborted', code: 'ABORT_ERR', signal: null, killed: false };
      return Promise.resolve({ error, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) });
    }
    if (!this.helper?.child.connected) {
      this.helper = new Helper((h) => {
        if (this.helper === h) this.helper = null;
      });
    }
    return this.helper.run(r);
  }

  /** No run after this; the helper exits once the runs under way have answered. */
  close(): void {
    this.closed = true;
    this.helper?.close();
    this.helper = null;
  }
}
