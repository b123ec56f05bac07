import type { TemplateDetail } from '../entries.js';

/**
 * The last answers of single-template reads with their card. Why: building
 * the card again (the graph, loops, touches, and the diff against its base)
 * was most of a GET's time, for an answer that changes only when what it is
 * made of does (bench/RESULTS.md, "where a GET's time goes"; docs/performance.md).
 *
 * An answer is kept under a key its reader builds from everything the answer
 * is made of — the bytes that load (their sha256), the facts from the
 * marker, the shipped version's hash, what the card is diffed against (its
 * name, kind and sha256), the catalogue's answers to every question both
 * validations asked (their kept refs), and the diverged entry — so a kept
 * answer is the answer built now. Keys are compared whole, never hashed.
 *
 * Bounded both ways: at most MAX_NAMES names, one answer each, and about
 * MAX_BYTES of text (sources, shipped bytes and diffs), least recently used
 * dropped first. An answer is plain data, shared, never changed.
 */
export const MAX_NAMES = 128;
export const MAX_BYTES = 8 * 2 ** 20;

interface Kept {
  key: string;
  detail: TemplateDetail;
  bytes: number;
}

/** The text an answer holds, roughly: what it keeps alive besides small records. */
function sizeOf(d: TemplateDetail, key: string): number {
  const diff = d.card?.diff?.unified ?? '';
  return key.length + d.source.length * 2 + (d.shipped_source?.length ?? 0) + diff.length + 4096;
}

export class AnswerMemo {
  /** by name, least recently used first */
  private readonly kept = new Map<string, Kept>();
  private bytes = 0;

  /** The answer kept for `name` under exactly this key; else null. */
  get(name: string, key: string): TemplateDetail | null {
    const k = this.kept.get(name);
    if (!k || k.key !== key) return null;
    this.kept.delete(name);
    this.kept.set(name, k);
    return k.detail;
  }

  /** Keeps `detail` as the answer for `name` under `key`, in place of any other. */
  set(name: string, key: string, detail: TemplateDetail): void {
    this.forget(name);
    const bytes = sizeOf(detail, key);
    if (bytes > MAX_BYTES) return;
    this.kept.set(name, { key, detail, bytes });
    this.bytes += bytes;
    for (const [oldest, k] of this.kept) {
      if (this.kept.size <= MAX_NAMES && this.bytes <= MAX_BYTES) break;
      this.kept.delete(oldest);
      this.bytes -= k.bytes;
    }
  }

  forget(name: string): void {
    const k = this.kept.get(name);
    if (!k) return;
    this.kept.delete(name);
    this.bytes -= k.bytes;
  }

  /** How much is kept: for the bench's memory row. */
  size(): { names: number; bytes: number } {
    return { names: this.kept.size, bytes: this.bytes };
  }
}
