/**
 * While a source is read, yaml's Parser sees an empty process.env (read.ts
 * withoutEnvReads: in Node every read of process.env asks the environment,
 * and yaml reads it for every token). Before and after, process.env is the
 * real one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { harnessDir } from '../src/paths.js';
import { readSource } from '../src/template/read.js';

const quickFix = readFileSync(join(harnessDir, 'templates', 'quick-fix.yaml'), 'utf8');

describe('process.env while a source is read', () => {
  afterEach(() => {
    delete process.env.LOG_TOKENS;
    vi.restoreAllMocks();
  });

  it('is the same object after reading, for a template, broken YAML and an empty text', () => {
    const env = process.env;
    for (const source of [quickFix, 'nodes: [a, {b: ]\n', '']) {
      readSource(source);
      expect(process.env).toBe(env);
    }
    process.env.DESK_READ_ENV_PROBE = 'still here';
    expect(process.env.DESK_READ_ENV_PROBE).toBe('still here');
    delete process.env.DESK_READ_ENV_PROBE;
  });

  it('is not consulted by yaml: its per-token debug log stays off even when asked for', () => {
    process.env.LOG_TOKENS = '1';
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const read = readSource(quickFix);
    expect(read.doc).not.toBeNull();
    expect(log).not.toHaveBeenCalled();
    expect(process.env.LOG_TOKENS).toBe('1');
  });
});
