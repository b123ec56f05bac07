import { defineConfig } from 'vitest/config';

/**
 * `npm run test:proof`: the proofs at full size — 50 SIGKILLs of the real
 * server (proof-crash), 150 model sequences and 150 scheduler interleavings
 * (proof-model), 1,000 hostile requests (proof-never-5xx), and every hostile
 * YAML shape (proof-hostile-api). PROOF_ROUNDS scales them; each proof has a
 * time budget (proof-helpers.ts) and fails saying how far it got.
 */
export default defineConfig({
  test: {
    include: ['test/proof-*.test.ts'],
    env: { PROOF_ROUNDS: process.env.PROOF_ROUNDS ?? '50' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/child-guard.ts'],
  },
});
