import { spawnSync } from 'node:child_process';

/**
 * Builds dist/ once before the suite: the CLI tests run the real bin, and the
 * crash and browser tests start the real server, all from the compiled code.
 * Type errors do not stop the build here (tsc still emits); `npm run
 * typecheck` is where they fail.
 */
export default function setup(): void {
  for (const project of ['tsconfig.json', 'tsconfig.web.json']) {
    const r = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project], { encoding: 'utf8' });
    if (r.status !== 0 && r.error) throw r.error;
  }
}
