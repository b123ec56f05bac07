import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's own folder: the nearest parent of this module that holds
 * package.json. Code runs from src/ under vitest and from dist/src/ after the
 * build, so paths to harness/ and the web assets are found from here rather
 * than relative to the module.
 */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('desk-library: cannot find package.json above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
})();

/** harness/: the shipped templates and built-in roles. */
export const harnessDir: string = join(packageRoot, 'harness');

/** The package's version, from its package.json: what `/health`, the OpenAPI document and `--version` say. */
export const packageVersion: string = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
