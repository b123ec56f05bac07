/**
 * A temp harness (shipped templates and roles whose bytes the test controls)
 * and a temp library root, and the app built over them. Close the app before
 * opening another on the same root: the root is locked.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type App, type AppOptions, buildApp } from '../src/app.js';
import { testSpawner } from './test-spawner.js';

export const ALPHA = `template:
  name: alpha
  purpose: one worker then a gate
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker, profile: read_only }
  gate: { type: builtin, builtin: human_gate }
cords:
  - { from: work.done, to: gate.in }
`;

/** A variant of alpha (base: alpha) with a reviewer. */
export const BETA = `template:
  name: beta
  purpose: alpha with a review
  base: alpha
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker, profile: read_only }
  review: { type: model, role: reviewer, profile: read_only }
  gate: { type: builtin, builtin: human_gate }
cords:
  - { from: work.done, to: review.start }
  - { from: review.done, to: gate.in }
`;

export const WORKER_MD = '# Worker\n\nDoes the work.\n';
export const WORKER_KIT = '{\n  "tools": [\n    "shell.run"\n  ]\n}\n';
export const REVIEWER_MD = '# Reviewer\n\nReads the work.\n';

export const API = '/api/desk';

export interface Fixture {
  dir: string;
  harness: string;
  /** the library root, or null */
  root: string | null;
  /** the app over this harness and root; `extra` adds options (a logger), web off unless it says */
  open(extra?: Omit<AppOptions, 'library' | 'libraryOptions'>): Promise<App>;
  /** replace a shipped template's bytes (takes effect at the next open) */
  ship(name: string, source: string): Promise<void>;
  /** a path under the library root */
  at(...parts: string[]): string;
  read(...parts: string[]): Promise<string | null>;
  /** write a file under the library root by hand, as an operator would */
  write(text: string, ...parts: string[]): Promise<void>;
  cleanup(): Promise<void>;
}

export async function fixture(opts: { root?: boolean } = {}): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), 'desk-http-'));
  const harness = join(dir, 'harness');
  const root = opts.root === false ? null : join(dir, 'root');
  await mkdir(join(harness, 'templates'), { recursive: true });
  await mkdir(join(harness, 'roles', 'worker'), { recursive: true });
  await mkdir(join(harness, 'roles', 'reviewer'), { recursive: true });
  await writeFile(join(harness, 'templates', 'alpha.yaml'), ALPHA);
  await writeFile(join(harness, 'templates', 'beta.yaml'), BETA);
  await writeFile(join(harness, 'roles', 'worker', 'role.md'), WORKER_MD);
  await writeFile(join(harness, 'roles', 'worker', 'kit.json'), WORKER_KIT);
  await writeFile(join(harness, 'roles', 'reviewer', 'role.md'), REVIEWER_MD);
  const at = (...parts: string[]) => join(root ?? '/nonexistent', ...parts);
  return {
    dir,
    harness,
    root,
    open: (extra = {}) => buildApp({ libraryOptions: { spawner: testSpawner, root, harnessDir: harness }, web: false, ...extra }),
    ship: (name, source) => writeFile(join(harness, 'templates', `${name}.yaml`), source),
    at,
    read: (...parts) => readFile(at(...parts), 'utf8').catch(() => null),
    write: async (text, ...parts) => {
      await mkdir(dirname(at(...parts)), { recursive: true });
      await writeFile(at(...parts), text);
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The fixture and app a test file works on. A test may replace either (a fixture of its own, an app over another library): the ones current at the end are closed. */
export interface Opened {
  fx: Fixture;
  app: App;
  /** closes the app and opens a new one on the same root, as after a restart */
  reopen(): Promise<void>;
}

/** A fresh fixture and app before each test (or, with `'file'`, one for the whole file), closed and removed after. */
export function openApp(scope: 'test' | 'file' = 'test'): Opened {
  const opened = {
    async reopen() {
      await opened.app.close();
      opened.app = await opened.fx.open();
    },
  } as Opened;
  (scope === 'test' ? beforeEach : beforeAll)(async () => {
    opened.fx = await fixture();
    opened.app = await opened.fx.open();
  });
  (scope === 'test' ? afterEach : afterAll)(async () => {
    await opened.app.close();
    await opened.fx.cleanup();
  });
  return opened;
}

/** A log destination for the app's `logger` option that keeps each JSON line written to it, parsed, in `lines`. */
export function keptLines(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, stream };
}
