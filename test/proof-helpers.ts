/**
 * Shared pieces of the proofs (test/proof-*.test.ts, docs/security.md "What
 * the tests prove"): a seeded PRNG so a failing run reproduces, a snapshot of
 * a folder tree, the state table of docs/api.md (States) written again from
 * the docs (not imported from src/, so the proofs do not check the code
 * against itself), and the real server as a child process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of this run: PROOF_SEED when set (to replay a failure), else a fresh one. */
export function runSeed(): number {
  const fromEnv = process.env.PROOF_SEED;
  return fromEnv ? Number(fromEnv) >>> 0 : (Math.random() * 2 ** 32) >>> 0;
}

export const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

/** Every file under `dir` (recursively), relative path → sha256 of its bytes. Links and folders are listed with a kind, not followed. */
export async function snapshotTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  async function walk(rel: string): Promise<void> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(join(dir, rel), { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const d of entries) {
      const p = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        out.set(`${p}/`, 'dir');
        await walk(p);
      } else if (d.isFile()) out.set(p, sha256(await readFile(join(dir, p))));
      else out.set(p, 'other');
    }
  }
  await walk('');
  return out;
}

/** Paths a finished start must never leave: temp files of an atomic write and intent files. */
export function leftovers(tree: Map<string, string>): string[] {
  return [...tree.keys()].filter((p) => {
    const base = p.replace(/\/$/, '').split('/').pop()!;
    return base.startsWith('.tmp-') || base.endsWith('.intent');
  });
}

export interface Marker {
  shipped: string;
  copy?: string;
}

/** The marker format (docs/operations.md): a hex line, optionally `copy <hex>`; anything else reads as none. */
export function readMarker(text: string | null): Marker | null {
  if (text === null) return null;
  const m = /^([0-9a-f]{64})\n(?:copy ([0-9a-f]{64})\n)?$/.exec(text);
  if (!m) return null;
  return m[2] ? { shipped: m[1]!, copy: m[2] } : { shipped: m[1]! };
}

/**
 * The state table of docs/api.md (States) for one template name: what the
 * service must report given today's shipped hash (null: not shipped), the
 * copy's hash (null: no copy) and its marker. Null when the name is not listed.
 */
export function expectedState(shippedHash: string | null, copyHash: string | null, marker: Marker | null): string | null {
  if (shippedHash === null) return copyHash === null ? null : 'custom';
  if (copyHash === null) return 'shipped';
  if (copyHash === shippedHash) return 'same_as_shipped';
  if (marker === null || marker.shipped === shippedHash) return 'edited';
  if (copyHash === marker.shipped) return 'stale';
  return 'shipped_changed_since';
}

export async function readOrNull(path: string): Promise<Buffer | null> {
  return readFile(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
}

export const SERVER_JS = join(import.meta.dirname, '..', 'dist', 'src', 'server.js');

export interface ServerProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>`, read from fastify's "Server listening at" line */
  base: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts `node dist/src/server.js` with PORT=0 on `root` and resolves once it
 * listens. Fastify logs the bound address at info, so the port is read from
 * stdout rather than guessed.
 */
export async function startServer(root: string, cwd: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(root, cwd, env);
    } catch (e) {
      // another vitest run's global setup may be rewriting dist/ this instant; a real missing module fails every time
      if (attempt >= 3 || !/ERR_MODULE_NOT_FOUND/.test((e as Error).message)) throw e;
      await new Promise((r) => setTimeout(r, 3000));
    }
  }
}

async function startOnce(root: string, cwd: string, env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [SERVER_JS], {
    cwd,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', DESK_LIBRARY_ROOT: root, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 15 s: ${err}`)), 15_000);
    const look = () => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', look);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', look);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening: ${err}`));
    });
  });
  return { child, base, stdout: () => out, stderr: () => err, exited };
}

/** SIGKILL and wait for the exit: no close hook, no lock release, no in-flight write finished. */
export async function killHard(s: ServerProcess): Promise<void> {
  if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await s.exited;
}

/** A JSON request to the server, as the desk process sends it (no Origin: not a browser). */
export async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown; etag: string | null }> {
  const res = await fetch(`${base}/api/desk${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, etag: res.headers.get('etag') };
}
