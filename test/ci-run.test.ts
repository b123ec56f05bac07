/**
 * `.ci/run` checks what a newcomer runs: the README's `npm ci && npm test` on
 * a fresh clone, with no dist/ and DESK_TEST_BUILT unset, before CI's own
 * build; and the suite's global setup builds everything that run needs,
 * the settings page included (guard-app and guard-listen load it at `/`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const ci = readFileSync(join(root, '.ci', 'run'), 'utf8');
/** The script's commands, comments and blank lines left out. */
const lines = ci
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const at = (re: RegExp) => lines.findIndex((l) => re.test(l));

describe('.ci/run', () => {
  it('runs npm test right after npm ci, with no dist/ and DESK_TEST_BUILT unset, before its build', () => {
    const install = at(/^npm ci\b/);
    const test = at(/^run_tests test$/);
    const build = at(/^npm run build$/);
    expect(install).toBeGreaterThan(-1);
    expect(test).toBeGreaterThan(install);
    expect(build).toBeGreaterThan(test);
    const between = lines.slice(install + 1, test);
    expect(between).toContain('rm -rf dist');
    expect(between).toContain('unset DESK_TEST_BUILT');
    // nothing in between builds or sets the flag
    expect(between.filter((l) => /npm run build|tsc|build-web|DESK_TEST_BUILT=/.test(l))).toEqual([]);
    expect(lines.slice(0, test).some((l) => /^export DESK_TEST_BUILT=/.test(l))).toBe(false);
  });

  it('runs each test script once, and sums the three reports in one closing line', () => {
    const runs = lines.flatMap((l) => {
      const one = /^run_tests (\S+)$/.exec(l);
      const loop = /^for script in ([^;]+); do run_tests "\$script"; done$/.exec(l);
      return one ? [one[1]!] : loop ? loop[1]!.split(' ') : [];
    });
    expect(runs.sort()).toEqual(['test', 'test:e2e', 'test:proof']);
    expect(lines.filter((l) => /^npm (run )?test\b/.test(l))).toEqual([]);
    expect(ci).toContain('"$reports/test.json" "$reports/test-proof.json" "$reports/test-e2e.json"');
    expect(ci.match(/console\.log\(`\$\{passed\} passed/g)).toHaveLength(1);
  });
});

describe('the global setup', () => {
  it('bundles the page after compiling, unless DESK_TEST_BUILT says dist/ is built', () => {
    const setup = readFileSync(join(import.meta.dirname, 'global-setup.ts'), 'utf8');
    const bundle = /if \(!built\) \{\s*const r = runSync\(process\.execPath, \['scripts\/build-web\.mjs'\]/;
    expect(setup).toMatch(bundle);
    expect(setup.search(bundle)).toBeGreaterThan(setup.indexOf("'tsconfig.json'"));
  });
});
