import { describe, expect, it } from 'vitest';
import { MAX_PROBLEMS_PER_CODE } from '../src/template/problem-collector.js';
import { validateTemplate } from '../src/template/validate.js';

const catalogue = { roles: new Set(['worker']), templates: new Set<string>() };

describe('problems per code are capped', () => {
  it('lists the first MAX_PROBLEMS_PER_CODE of one code, in source order, and stays invalid', () => {
    const keys = Array.from({ length: 3000 }, (_, i) => `junk_${i}: 1\n`).join('');
    const { problems, valid } = validateTemplate(keys, { catalogue });
    const unknown = problems.filter((p) => p.code === 'key.unknown');
    expect(unknown).toHaveLength(MAX_PROBLEMS_PER_CODE);
    expect(unknown.map((p) => p.line)).toEqual(Array.from({ length: MAX_PROBLEMS_PER_CODE }, (_, i) => i + 1));
    expect(unknown.map((p) => p.path)[0]).toBe('/junk_0');
    // other codes are not crowded out
    expect(problems.some((p) => p.code === 'patch.no_nodes')).toBe(true);
    expect(valid).toBe(false);
  });

  it('keeps every problem below the cap', () => {
    const keys = Array.from({ length: MAX_PROBLEMS_PER_CODE - 1 }, (_, i) => `junk_${i}: 1\n`).join('');
    const unknown = validateTemplate(keys, { catalogue }).problems.filter((p) => p.code === 'key.unknown');
    expect(unknown).toHaveLength(MAX_PROBLEMS_PER_CODE - 1);
  });
});
