import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { isTemplateName } from '../../src/template/names.js';
import { NAME_PATTERN, nameProblem, renameSource } from '../../src/web/names.js';

describe('template names in the page', () => {
  it('gives the input a pattern that compiles with the v flag, as browsers compile it', () => {
    expect(() => new RegExp(`^(?:${NAME_PATTERN})$`, 'v')).not.toThrow();
    const re = new RegExp(`^(?:${NAME_PATTERN})$`, 'v');
    for (const s of ['a', 'release-notes', '0-x', 'a'.repeat(64), '', '-a', 'A', 'a_b', 'a'.repeat(65)]) {
      expect(re.test(s), s).toBe(isTemplateName(s));
    }
  });

  it('says what is wrong with a bad name, and nothing for a good one', () => {
    expect(nameProblem('release-notes')).toBeNull();
    for (const bad of ['', 'Release', 'a_b', '-a', 'a'.repeat(65), 'shipped', 'base']) expect(nameProblem(bad), bad).not.toBeNull();
  });

  it('renames only the header name of every shipped template, byte for byte elsewhere', () => {
    const dir = join(packageRoot, 'harness', 'templates');
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml'))) {
      const before = readFileSync(join(dir, f), 'utf8');
      const after = renameSource(before, 'my-copy');
      const changed = after.split('\n').filter((l, i) => l !== before.split('\n')[i]);
      expect(changed, f).toEqual(['  name: my-copy']);
    }
  });

  it('skips names nested under the header and keeps a comment after the value', () => {
    const src = 'template:\n  inputs:\n    - required: true\n      name: a\n  name: "x" # why\nversion: 1\n';
    expect(renameSource(src, 'y')).toBe(src.replace('"x"', 'y'));
    expect(renameSource('version: 1\n', 'y')).toBe('version: 1\n');
  });
});
