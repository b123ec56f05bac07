import { defineConfig } from 'vitest/config';
import { PROOF_ONLY } from './vitest.proof.config.js';

/**
 * `npm test`: the unit, `inject` and process tests, and the proofs in a short
 * seeded version (PROOF_ROUNDS=3 unless set). A real-process test whose point
 * is many rounds or a whole lifecycle runs one round or one representative
 * case here (fullProof() is false below PROOF_ROUNDS=50). The full proofs and
 * those tests in full run with `npm run test:proof` (vitest.proof.config.ts),
 * the browser tests with `npm run test:e2e` (vitest.e2e.config.ts). The
 * kill, crash and real-process sync proofs and the two-desk rounds
 * (PROOF_ONLY there) run only in `npm run test:proof`: each takes over 10 s
 * even in its short version.
 */
const shared = {
  env: { PROOF_ROUNDS: process.env.PROOF_ROUNDS ?? '3' },
  // Generous: a test that starts real processes may wait seconds for a CPU on a busy 2-core machine.
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks',
  // kills every process a test file started, even when a test timed out or threw
  setupFiles: ['test/child-guard.ts'],
} as const;

export default defineConfig({
  test: {
    // not inherited by the projects below (they do not extend this), so it runs once
    globalSetup: ['test/global-setup.ts'],
    // Both cores: many tests wait on the disk or a child process, so two files at a time
    // finish sooner even when the machine is shared (vitest's default on 2 cores is one).
    maxWorkers: 2,
    projects: [
      {
        test: {
          ...shared,
          name: 'unit',
          include: ['test/**/*.test.ts'],
          // PROOF_ONLY: the kill, crash and real-process sync proofs, run by `npm run test:proof` alone
          exclude: ['**/node_modules/**', 'test/e2e/**', 'test/proof-never-5xx.test.ts', ...PROOF_ONLY],
          // One module graph per worker instead of per file: a third less CPU (fastify, typebox and
          // the validator are loaded once). Sound while no test file mocks modules or changes
          // globals; one that must goes in the 'isolated' project below. The short proofs run here too.
          isolate: false,
          // and each app's response serializers compiled once per worker, not once per app (test/compile-once.ts)
          setupFiles: [...shared.setupFiles, 'test/compile-once.ts'],
        },
      },
      {
        // proof-never-5xx checks that no global was poisoned since its first import, and restores them
        test: { ...shared, name: 'isolated', include: ['test/proof-never-5xx.test.ts'] },
      },
    ],
  },
});
