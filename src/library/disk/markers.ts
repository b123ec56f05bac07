import { createHash } from 'node:crypto';

/**
 * Markers (docs/operations.md, The library root on disk). `<root>/templates/.<name>.shipped` and
 * `<root>/roles/<name>/.shipped`:
 *
 *     <lowercase hex sha256 of the shipped bytes at the save>
 *     copy <lowercase hex sha256 of the bytes saved>
 *
 * A reader accepts the first line alone; anything else it cannot read counts
 * as no marker at all.
 */
export interface Marker {
  /** sha256 of the shipped version the copy was saved against (or acknowledged) */
  shipped: string;
  /** sha256 of the bytes the service wrote; absent in a one-line marker */
  copy?: string;
}

const HEX64 = /^[0-9a-f]{64}$/;

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The strong ETag of a hash, quoted as HTTP wants it. */
export function etagOf(hash: string): string {
  return `"${hash}"`;
}

export function parseMarker(text: string): Marker | null {
  const lines = text.split('\n');
  // one trailing newline is fine; any other extra line makes it unreadable
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length < 1 || lines.length > 2) return null;
  const shipped = lines[0]!;
  if (!HEX64.test(shipped)) return null;
  if (lines.length === 1) return { shipped };
  const m = /^copy ([0-9a-f]{64})$/.exec(lines[1]!);
  return m ? { shipped, copy: m[1]! } : null;
}

export function formatMarker(m: Marker): string {
  return m.copy === undefined ? `${m.shipped}\n` : `${m.shipped}\ncopy ${m.copy}\n`;
}

/**
 * A role's revision hash: one sha256 that changes when role.md changes, when
 * kit.json changes, and when kit.json appears or goes. Each part is length-
 * prefixed so no two different roles hash the same input:
 *
 *     sha256( "role.md " <byte length> "\n" <role.md bytes>
 *             ( "kit.json " <byte length> "\n" <kit.json bytes>  |  "nokit\n" ) )
 */
export function roleRevision(roleMd: Buffer, kit: Buffer | null): string {
  const h = createHash('sha256');
  h.update(`role.md ${roleMd.length}\n`).update(roleMd);
  if (kit === null) h.update('nokit\n');
  else h.update(`kit.json ${kit.length}\n`).update(kit);
  return h.digest('hex');
}

/**
 * If-Match against the current ETag (RFC 9110 §13.1.1): a list of strong tags
 * or `*`. `*` and tags match only when something exists; weak tags never match.
 */
export function ifMatchPasses(ifMatch: string | undefined, currentEtag: string | null): boolean {
  if (ifMatch === undefined) return true;
  if (currentEtag === null) return false;
  const wanted = ifMatch.trim();
  if (wanted === '*') return true;
  return wanted.split(',').some((t) => t.trim() === currentEtag);
}
