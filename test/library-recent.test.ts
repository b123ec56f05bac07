import { describe, expect, test } from 'vitest';
import { markUsed } from '../src/library/recent.js';

describe('markUsed: the bounded most-recently-used set behind the kept bytes and validations', () => {
  test('past the bound the least recently used is removed and returned; a use moves an item to the end', () => {
    const set = new Set<string>();
    expect(markUsed(set, 'a', 2)).toBeUndefined();
    expect(markUsed(set, 'b', 2)).toBeUndefined();
    expect(markUsed(set, 'a', 2)).toBeUndefined(); // a is now the most recent
    expect(markUsed(set, 'c', 2)).toBe('b');
    expect([...set]).toEqual(['a', 'c']);
  });
});
