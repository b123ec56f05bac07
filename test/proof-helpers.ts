/**
 * Shared pieces of the proofs (test/proof-*.test.ts, docs/security.md "What
 * the tests prove"): a seeded PRNG so a failing run reproduces, a snapshot of
 * a folder tree, the state table of docs/api.md (States) written again from
 * the docs (not imported from src/, so the proofs do not check the code
 * against itself), and the real server as a child process.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect } from 'vitest';
import { killChild, spawnChild } from './children.js';

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

/**
 * How much of each proof runs. PROOF_ROUNDS is the crash proof's number of
 * kills; the other proofs scale their runs by the same fraction of the full
 * 50. Unset means the full proofs (`npm run test:proof`); `npm test` sets 3
 * (vitest.config.ts), a short version with fixed seeds.
 */
export const FULL_ROUNDS = 50;
export function proofRounds(): number {
  const n = Number(process.env.PROOF_ROUNDS ?? FULL_ROUNDS);
  if (!Number.isInteger(n) || n < 1) throw new Error(`PROOF_ROUNDS must be a whole number ≥ 1, not ${process.env.PROOF_ROUNDS}`);
  return n;
}
/** True when the proofs run at full size: the checks that a run covered enough ground only hold then. */
export const fullProof = (): boolean => proofRounds() >= FULL_ROUNDS;
/** `full` scaled by PROOF_ROUNDS / 50, at least `min`. */
export const scaled = (full: number, min = 1): number => Math.max(min, Math.round((full * proofRounds()) / FULL_ROUNDS));

/**
 * A proof's time budget: `perRound` ms for each of `rounds` (at least a
 * minute). Generous on purpose — on an idle machine a round takes a fraction
 * of it, and a 2-core machine shared with other jobs runs several times
 * slower. PROOF_BUDGET_S overrides it. A proof that runs out stops and fails
 * saying how far it got, well before its vitest timeout (`budget + 120 s`).
 */
export function proofBudgetMs(perRound: number, rounds: number): number {
  const fromEnv = Number(process.env.PROOF_BUDGET_S);
  return fromEnv > 0 ? fromEnv * 1000 : Math.max(60_000, perRound * rounds);
}
export const proofTimeoutMs = (budget: number): number => budget + 120_000;

/**
 * The seed of this run: PROOF_SEED when set (to replay a failure); else, for
 * the full proof a fresh one, and for the short version `fixed`, so `npm
 * test` runs the same plan every time.
 */
export function runSeed(fixed: number): number {
  const fromEnv = process.env.PROOF_SEED;
  if (fromEnv) return Number(fromEnv) >>> 0;
  return fullProof() ? (Math.random() * 2 ** 32) >>> 0 : fixed;
}

/**
 * fc.assert with a time budget: the runs stop at the deadline and the proof
 * fails naming how many of its runs it made, instead of a vitest timeout.
 */
export async function assertWithin<Ts>(label: string, property: fc.IAsyncProperty<Ts>, params: fc.Parameters<Ts> & { numRuns: number }, budgetMs: number): Promise<void> {
  const out = await fc.check(property, { ...params, interruptAfterTimeLimit: budgetMs, markInterruptAsFailure: false });
  if (out.failed) throw new Error(fc.defaultReportMessage(out) ?? `${label}: property failed`, { cause: out.errorInstance });
  if (out.interrupted) expect.fail(`${label}: ran ${out.numRuns} of ${params.numRuns} runs in the budget of ${Math.round(budgetMs / 1000)} s (machine busy? PROOF_BUDGET_S raises it)`);
}

export const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

/**
 * Every file under `dir` (recursively), relative path → sha256 of its bytes. Links and folders are
 * listed with a kind, not followed. The root's `.git` and `.desk-journal` (the queued commits) are
 * left out: history commits the answered writes in the background (docs/history.md), on its own
 * schedule; the history tests check it.
 */
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
      if (p === '.git' || p === '.desk-journal') continue;
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
 * Starts `node dist/src/server.js` (or another build's `server`) with PORT=0 on `root` and resolves once it
 * listens. Fastify logs the bound address at info, so the port is read from
 * stdout rather than guessed.
 */
export async function startServer(root: string, cwd: string, env: Record<string, string> = {}, server = SERVER_JS): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(root, cwd, env, server);
    } catch (e) {
      // another vitest run's global setup may be rewriting dist/ this instant (a module missing, or one
      // older than its importer); a real missing module or export fails every time
      if (attempt >= 3 || !/ERR_MODULE_NOT_FOUND|does not provide an export named/.test((e as Error).message)) throw e;
      await new Promise((r) => setTimeout(r, 3000));
    }
  }
}

async function startOnce(root: string, cwd: string, env: Record<string, string>, server: string): Promise<ServerProcess> {
  const child = spawnChild(process.execPath, [server], {
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
    // a start takes well under a second when idle; 30 s is for a 2-core machine shared with other jobs
    const timer = setTimeout(() => {
      killChild(child);
      reject(new Error(`server did not start in 30 s: ${err}`));
    }, 30_000);
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
  if (s.child.exitCode === null && s.child.signalCode === null) killChild(s.child);
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
