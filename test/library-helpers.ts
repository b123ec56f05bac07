import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson, canonicalRoleMd } from '../src/library/roles/canonical.js';
import { type LibraryOptions, openLibrary } from '../src/library/library.js';
import type { Library } from '../src/library/types.js';
import { testLocks, testSpawner } from './test-spawner.js';

/** Shared fixtures for test/library-*.test.ts: temp folders and a harness of our own, so no test depends on harness/ content. */

export async function tempDir(prefix = 'desk-lib-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** A small valid template (one model node) of the given name. */
export function tpl(name: string, purpose = 'a small fixture template', role = 'worker'): string {
  return [
    'template:',
    `  name: ${name}`,
    `  purpose: ${purpose}`,
    '  entry: work',
    '  inlet: start',
    'version: 1',
    'nodes:',
    `  work: { type: model, role: ${role}, profile: read_only }`,
    'cords: []',
    '',
  ].join('\n');
}

export interface HarnessSpec {
  templates?: Record<string, string>;
  roles?: Record<string, { md: string; kit?: { tools: string[] } }>;
}

export const DEFAULT_HARNESS: HarnessSpec = {
  templates: { alpha: tpl('alpha', 'alpha v1'), beta: tpl('beta', 'beta v1') },
  roles: { worker: { md: 'You do the work.', kit: { tools: ['workspace.read'] } }, ticket_intake: { md: 'You read tickets.' } },
};

/** Writes a harness folder (roles in canonical form, as shipped roles are). */
export async function makeHarness(dir: string, spec: HarnessSpec = DEFAULT_HARNESS): Promise<string> {
  await mkdir(join(dir, 'templates'), { recursive: true });
  await mkdir(join(dir, 'roles'), { recursive: true });
  for (const [name, src] of Object.entries(spec.templates ?? {})) await writeFile(join(dir, 'templates', `${name}.yaml`), src);
  for (const [name, r] of Object.entries(spec.roles ?? {})) {
    await mkdir(join(dir, 'roles', name), { recursive: true });
    await writeFile(join(dir, 'roles', name, 'role.md'), canonicalRoleMd(r.md));
    if (r.kit) await writeFile(join(dir, 'roles', name, 'kit.json'), canonicalJson(r.kit));
  }
  return dir;
}

export interface Fixture {
  base: string;
  root: string;
  harness: string;
  open(extra?: Partial<LibraryOptions>): Promise<Library>;
}

/** A temp folder with `harness/` (from spec) and `root/`; open() opens a library on them with no read-only templates. */
export async function fixture(spec: HarnessSpec = DEFAULT_HARNESS): Promise<Fixture> {
  const base = await tempDir();
  const harness = await makeHarness(join(base, 'harness'), spec);
  const root = join(base, 'root');
  await mkdir(root);
  return {
    base,
    root,
    harness,
    open: (extra = {}) => openLibrary({ spawner: testSpawner, locks: testLocks, root, harnessDir: harness, readOnlyTemplates: new Map(), ...extra }),
  };
}

/** Resolves to the DeskError code (or error name) a promise rejects with. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as { code?: string; name: string }).code ?? (e as Error).name;
  }
  return 'resolved';
}

export interface Rejection {
  code: string;
  extra: { problems: { code: string; path: string }[] };
}

/** The DeskError a promise rejects with (fails the test if it resolves). */
export async function rejection(p: Promise<unknown>): Promise<Rejection> {
  try {
    await p;
  } catch (e) {
    return e as Rejection;
  }
  throw new Error('expected a rejection');
}
