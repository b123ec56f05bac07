import { runSync, sweepRegistry } from './children.js';

/**
 * Builds dist/ once before the suite, as `npm run build` does: the CLI tests
 * run the real bin, and the crash and browser tests start the real server,
 * all from the compiled code; guard-app and guard-listen load the settings
 * page at `/`, which the bundle step (scripts/build-web.mjs) makes. So `npm ci
 * && npm test` passes on a fresh clone with no dist/ (.ci/run checks exactly
 * that). Type errors do not stop the build here (tsc still emits); `npm run
 * typecheck` is where they fail. A bundle that fails does stop it: the page
 * would be missing.
 *
 * The returned teardown is the last guard of test/children.ts: it kills any
 * child a worker registered and could not kill itself (a worker that was
 * SIGKILLed runs no exit handler).
 */
export default function setup(): () => void {
  // .ci/run builds once before its three test runs
  const built = process.env.DESK_TEST_BUILT === '1';
  for (const project of built ? [] : ['tsconfig.json', 'tsconfig.web.json']) {
    const r = runSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project], { encoding: 'utf8' });
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
