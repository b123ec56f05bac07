/**
 * A sampling profile's samples given to parts: each sample goes to the
 * innermost frame on its stack that a part's test claims (or to its caller's
 * part, up to the root), so the parts add up to the whole. Used by the
 * bench's profile children (get-profile-child.ts, save-profile-child.ts).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  parent?: number;
  children?: number[];
}

export type Part = [part: string, test: (fn: string, url: string) => boolean];

/** part → share of the samples (0..1), largest first. */
export function classifySamples(profile: { nodes: ProfileNode[]; samples: number[] }, parts: readonly Part[]): Record<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) byId.get(c)!.parent = n.id;
  const partOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = partOf.get(id);
    if (known !== undefined) return known;
    const n = byId.get(id)!;
    const { functionName: fn, url: u } = n.callFrame;
    const own = parts.find(([, test]) => test(fn, u))?.[0];
    const part = own ?? (n.parent === undefined ? 'other (program)' : classify(n.parent));
    partOf.set(id, part);
    return part;
  };
  const counts: Record<string, number> = {};
  for (const s of profile.samples) {
    const p = classify(s);
    counts[p] = (counts[p] ?? 0) + 1;
  }
  const total = profile.samples.length;
  return Object.fromEntries(Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / total]));
}

/** Runs a profile child, `node <script> …args` beside this file, and reads the one JSON line it prints last. */
export async function profileChild<T>(script: string, args: readonly string[]): Promise<T> {
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, [path, ...args], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as T;
}

/** The parts of at least 1 %, largest first: "fastify + inject 52 %, garbage collection 24 %, …". */
export function partsText(parts: Record<string, number>): string {
  return Object.entries(parts)
    .filter(([, share]) => share >= 0.01)
    .map(([part, share]) => `${part} ${(share * 100).toFixed(0)} %`)
    .join(', ');
}
