/**
 * `npm run test:proof` runs before its tests (the `pretest:proof` script): the
 * typed client check (test/openapi-client.test.ts) needs tools of its own in test/client —
 * openapi-typescript wants TypeScript 5 while the project uses 7, so they
 * cannot share the root's install. This installs them with `npm ci` when
 * they are missing or when test/client's lock changed since they were, and
 * does nothing otherwise, so `npm ci && npm run test:proof` stays the whole
 * recipe on a fresh clone.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const dir = new URL('../test/client/', import.meta.url);
const lock = createHash('sha256').update(readFileSync(new URL('package-lock.json', dir))).digest('hex');
// written after a successful install: the lock it installed
const stamp = new URL('node_modules/.desk-lock-sha256', dir);

if (!existsSync(stamp) || readFileSync(stamp, 'utf8').trim() !== lock) {
  process.stdout.write('test/client: installing the typed client check\'s tools (npm ci --prefix test/client)\n');
  execFileSync('npm', ['ci', '--prefix', 'test/client', '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit', cwd: new URL('..', import.meta.url) });
  writeFileSync(stamp, `${lock}\n`);
}
