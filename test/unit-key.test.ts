/**
 * One spelling of a kind (src/library/unit.ts): a unit's key is built and
 * taken apart in one place, and history's paths and labels follow it.
 */
import { expect, test } from 'vitest';
import { pathsOf } from '../src/library/history/snapshot.js';
import { folderOf, roleUnit, templateUnit, unitKey, unitOfFolder, unitOfKey } from '../src/library/unit.js';

test('a key names its unit both ways, for either kind', () => {
  for (const u of [templateUnit('quick-fix'), roleUnit('reviewer'), templateUnit('role-like-name')]) {
    expect(unitOfKey(unitKey(u))).toEqual(u);
  }
  expect(unitKey(roleUnit('reviewer'))).toBe('role:reviewer');
});

test("the sync's folder spelling converts at its boundary and back", () => {
  expect(folderOf('template')).toBe('templates');
  expect(unitOfFolder(folderOf('role'), 'reviewer')).toEqual(roleUnit('reviewer'));
});

test("history's paths of a key are its kind's files", () => {
  expect(pathsOf(unitKey(templateUnit('quick-fix'))).every((p) => p.startsWith('templates/'))).toBe(true);
  expect(pathsOf(unitKey(roleUnit('reviewer'))).every((p) => p.startsWith('roles/'))).toBe(true);
});
