import { defineConfig } from 'vitest/config';

/**
 * `npm run test:proof`: the proofs at full size — 50 SIGKILLs of the real
 * server (proof-crash), 150 model sequences and 150 scheduler interleavings
 * (proof-model), 1,000 hostile requests (proof-never-5xx), and every hostile
 * YAML shape (proof-hostile-api). PROOF_ROUNDS scales them; each proof has a
 * time budget (proof-helpers.ts) and fails saying how far it got.
 *
 * Also the real-process files whose point is many rounds or the whole
 * process lifecycle: `npm test` runs a short version of each (one round, one
 * representative case, fullProof() false at PROOF_ROUNDS=3), this the full
 * one — 200 rounds of concurrent starters per takeover (root-lock), 25 stops
 * with saves in flight and every other stop (server-stop), the lock lost and
 * the PID 1 restart (server-lock), the read-only roots, the HEALTHCHECK, and
 * the Docker build from its copied files (deploy). And PROOF_ONLY below, which
 * `npm test` leaves out.
 */
/**
 * The proofs whose every run kills or crashes the service again and again
 * (or cuts an upgrade short at each of its steps), drives several desks'
 * real servers, takes two desks through round after round on one remote
 * (sync-rounds, history-own, history-walk), or proves a team's sharing (desks and a
 * teammate's clone on one remote, git fsck after each): over 10 s each
 * even in a short version, so only this script runs them. `npm test` keeps
 * the in-process proofs at PROOF_ROUNDS=3, one two-desk round and the
 * single-desk sync cases (sync.test.ts) and the short version of the other
 * files listed below. Also here alone: the other party's tools on the API
 * document (openapi-client: a generator and two linters, each a process of
 * its own) and the clean filters and textconv a teammate's config could set
 * (git-filters: saves, a start and sync rounds against a booby-trapped
 * repository), each over 15 s.
 */
export const PROOF_ONLY = [
  'test/proof-crash.test.ts',
  'test/proof-sync-kill.test.ts',
  'test/proof-journal-legacy.test.ts',
  'test/upgrade-kill.test.ts',
  'test/sync-process.test.ts',
  'test/sync-rounds.test.ts',
  'test/history-own.test.ts',
  'test/history-walk.test.ts',
  'test/sync-shared.test.ts',
  'test/sync-teammate.test.ts',
  'test/history-server.test.ts',
  'test/git-filters-kill.test.ts',
  'test/library-recovery.test.ts',
  'test/upgrade-crash.test.ts',
  'test/openapi-client.test.ts',
  'test/git-filters.test.ts',
];

export default defineConfig({
  test: {
    include: [
      ...PROOF_ONLY,
      'test/proof-*.test.ts',
      'test/root-lock.test.ts',
      'test/server-stop.test.ts',
      'test/server-lock.test.ts',
      'test/odd-files-readonly.test.ts',
      'test/healthcheck.test.ts',
      'test/deploy.test.ts',
    ],
    env: { PROOF_ROUNDS: process.env.PROOF_ROUNDS ?? '50' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/child-guard.ts'],
  },
});
