import { HeldLocks } from '../src/library/disk/root-lock.js';
import { GitSpawner } from '../src/library/history/spawner.js';

/**
 * One helper process that starts git for every library a test worker opens
 * (LibraryOptions.spawner): a library's own would be one more Node process
 * to start per test. The workers share modules across files (isolate: false
 * in vitest.config.ts), so this is one helper per worker; never closed, it
 * exits with the worker.
 */
export const testSpawner = new GitSpawner();

/**
 * The root locks of the libraries the tests open (LibraryOptions.locks): a
 * test that opens a root it already holds is refused at once, not after the
 * holder's next touch.
 */
export const testLocks = new HeldLocks();
