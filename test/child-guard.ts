/**
 * Setup file of every vitest config: after each test file, kill every child
 * process its tests started (test/children.ts), even when a test timed out
 * or threw.
 */
import { afterAll, beforeAll } from 'vitest';
import { closeChildren, openChildren } from './children.js';

beforeAll(openChildren);
afterAll(closeChildren);
