import type { BigIntStats } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { EntryCache, RACY_MS, statsKey } from '../src/library/memos/entry-cache.js';
import type { TemplateFacts } from '../src/library/entries.js';

/**
 * The entry cache keeps each template's stats as one string (statsKey):
 * every field that proves a file unchanged still counts, exactly, and a file
 * appearing or going is a change.
 */

const SEC = 1_700_000_000n;
function st(over: Partial<Record<'ino' | 'size' | 'mtimeNs' | 'ctimeNs' | 'dev', bigint>> = {}): BigIntStats {
  return { dev: 2049n, ino: 1234567n, size: 812n, mtimeNs: SEC * 1_000_000_000n + 1n, ctimeNs: SEC * 1_000_000_000n + 1n, ...over } as BigIntStats;
}
const facts: TemplateFacts = { name: 'mine', state: 'custom', shipped: false, read_only: false, edited_outside: false, hash: 'a'.repeat(64), etag: `"${'a'.repeat(64)}"` };
/** read well after the files' last change: the stats prove the facts */
const OLD = Number(SEC) * 1000 + 10 * RACY_MS;

describe('the entry cache keys a slot on its files stats', () => {
  test('the same stats prove the slot; a change of any one field, by one, does not', () => {
    const c = new EntryCache();
    c.set('mine', [st(), null, null], OLD, facts);
    expect(c.get('mine', st(), null, null)?.facts).toBe(facts);
    for (const field of ['ino', 'size', 'mtimeNs', 'ctimeNs', 'dev'] as const) {
      expect(c.get('mine', st({ [field]: st()[field] + 1n }), null, null), field).toBeNull();
    }
  });

  test('a nanosecond past what a double holds still counts', () => {
    const c = new EntryCache();
    // 2^53 ns is about 104 days: every real mtime is far past it, where a double steps by 256 ns
    c.set('mine', [st(), null, null], OLD, facts);
    expect(Number(st().mtimeNs) === Number(st().mtimeNs + 1n)).toBe(true);
    expect(c.get('mine', st({ mtimeNs: st().mtimeNs + 1n }), null, null)).toBeNull();
  });

  test('a marker or intent appearing or going is a change', () => {
    const c = new EntryCache();
    c.set('mine', [st(), null, null], OLD, facts);
    expect(c.get('mine', st(), st({ ino: 9n }), null)).toBeNull();
    expect(c.get('mine', st(), null, st({ ino: 9n }))).toBeNull();
    c.set('mine', [st(), st({ ino: 9n }), null], OLD, facts);
    expect(c.get('mine', st(), null, null)).toBeNull();
    expect(c.get('mine', st(), st({ ino: 9n }), null)?.facts).toBe(facts);
    expect(statsKey(st(), null, null)).not.toBe(statsKey(null, st(), null));
  });

  test('files changed within RACY_MS of their read prove nothing, however alike their stats', () => {
    const c = new EntryCache();
    c.set('mine', [st(), null, null], Number(SEC) * 1000 + RACY_MS - 1, facts);
    expect(c.has('mine')).toBe(true);
    expect(c.get('mine', st(), null, null)).toBeNull();
  });
});

describe('statsKey', () => {
  test('an inode past 2^53 (an overlay file system sets high bits) is written exactly', () => {
    const big = 2n ** 60n + 1n;
    expect(statsKey(st({ ino: big }), null, null)).not.toBe(statsKey(st({ ino: big + 1n }), null, null));
    expect(statsKey(st({ ino: big }), null, null).split(' ')[0]).toBe(String(big));
  });
});
