import { defineConfig } from 'vitest/config';

/**
 * `npm run test:e2e`: the settings page in Chromium (CHROMIUM_PATH, default
 * /usr/bin/chromium) through playwright-core.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    // A page round trip is tens of milliseconds idle; on a busy 2-core machine Chromium can stall
    // for seconds, so polls and tests wait long before they call a state missing.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 20_000, interval: 100 } },
    pool: 'forks',
    // one browser at a time: two Chromiums on two cores slow each other more than they gain
    maxWorkers: 1,
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/child-guard.ts'],
  },
});
