import { defineConfig } from 'vitest/config';

/**
 * `npm test`: the unit, `inject` and process tests, and the proofs in a short
 * seeded version (PROOF_ROUNDS=5 unless set). The full proofs run with
 * `npm run test:proof` (vitest.proof.config.ts), the browser tests with
 * `npm run test:e2e` (vitest.e2e.config.ts).
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/e2e/**'],
    env: { PROOF_ROUNDS: process.env.PROOF_ROUNDS ?? '5' },
    // Generous: a test that starts real processes may wait seconds for a CPU on a busy 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Both cores: many tests wait on the disk or a child process, so two files at a time
    // finish sooner even when the machine is shared (vitest's default on 2 cores is one).
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
    // kills every process a test file started, even when a test timed out or threw
    setupFiles: ['test/child-guard.ts'],
  },
});
