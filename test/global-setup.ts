import { runSync, sweepRegistry } from './children.js';

/**
 * Builds what the tests run from dist/ once before the suite: the CLI tests
 * run the real bin, and the crash and browser tests start the real server,
 * all from the compiled code; guard-app and guard-listen load the settings
 * page at `/`, which the bundle step (scripts/build-web.mjs) makes. So `npm ci
 * && npm test` passes on a fresh clone with no dist/ (.ci/run checks exactly
 * that). Type errors do not stop the build here (tsc still emits); `npm run
 * typecheck` is where they fail, so the page's own type check (tsconfig.web.json,
 * which emits nothing) is not run here. A bundle that fails does stop it: the
 * page would be missing.
 *
 * tsc builds incrementally, its build info kept inside dist/: a run after a
 * small change re-emits only what changed (about 1.5 s of CPU instead of 7),
 * and removing dist/ removes the build info with it, so a missing dist/ is
 * always built in full.
 *
 * The returned teardown is the last guard of test/children.ts: it kills any
 * child a worker registered and could not kill itself (a worker that was
 * SIGKILLed runs no exit handler).
 */
export default function setup(): () => void {
  // .ci/run builds once before its three test runs
  const built = process.env.DESK_TEST_BUILT === '1';
  if (!built) {
    const tsc = ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo'];
    const r = runSync(process.execPath, tsc, { encoding: 'utf8' });
    if (r.status !== 0 && r.error) throw r.error;
  }
  if (!built) {
    const r = runSync(process.execPath, ['scripts/build-web.mjs'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`the page's bundle failed (node scripts/build-web.mjs):\n${r.stderr}`);
  }
  return () => {
    const killed = sweepRegistry(process.pid);
    if (killed > 0) console.warn(`global teardown: killed ${killed} child process group(s) a test file left running`);
  };
}
