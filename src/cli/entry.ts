import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Io } from './io.js';

/** The process's own streams: what the CLI writes to when it runs as a command. */
export const processIo: Io = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
};

/**
 * Whether the module at `moduleUrl` is the script Node was started with
 * (`node dist/src/cli.js …`, or `node dist/src/cli …` as Node also resolves
 * it), and not a module imported by another (bin/desk-library.js, a test).
 * Both sides are compared as real paths, so a link to the file (npm's
 * node_modules/.bin) counts as the file.
 */
export function isProcessEntry(moduleUrl: string, script: string | undefined = process.argv[1]): boolean {
  if (!script) return false;
  const self = real(fileURLToPath(moduleUrl));
  return self !== null && [script, `${script}.js`].some((s) => real(s) === self);
}

function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}
