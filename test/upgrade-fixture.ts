/**
 * A library root saved by this build, then a new release: what the upgrade
 * tests share. Copies of five shipped templates (an unedited one, a clean
 * edit, a conflicting edit, an edit that merges into an invalid template, an
 * edit whose kept base is gone), a custom template, an unedited built-in role
 * and an edited one; then the shipped templates and roles changed.
 */
import { realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { buildApp } from '../src/app.js';
import { roleRevision, sha256Hex } from '../src/library/disk/markers.js';
import { openLibrary } from '../src/library/library.js';
import { keepRoleBase } from '../src/library/roles/files.js';
import { API, type Fixture, WORKER_KIT } from './http-fixture.js';
import { testSpawner } from './test-spawner.js';

/** A shipped template in a few variants; blank lines keep each side's changes apart for the line merge. */
export function T(name: string, o: { purpose?: string; after?: string; tail?: string } = {}): string {
  return `template:
  name: ${name}
  purpose: ${o.purpose ?? 'one worker then a gate'}
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker, profile: read_only }

  gate: { type: builtin, builtin: human_gate }
${o.after ?? ''}
cords:
  - { from: work.done, to: gate.in }

${o.tail ?? ''}`;
}

export const UPSTREAM_NOTE = '# upstream: a note added by the new release\n';
/** v2 of each shipped name, and the copy saved against v1 */
export const V2: Record<string, string> = {
  'up-reset': T('up-reset', { tail: UPSTREAM_NOTE }),
  'up-clean': T('up-clean', { tail: UPSTREAM_NOTE }),
  'up-conflict': T('up-conflict', { purpose: 'the upstream purpose' }),
  // a `check` node below the gate; the copy adds its own `check` above the worker: each valid alone, merged the key is there twice
  'up-invalid': T('up-invalid', { after: '  check: { type: builtin, builtin: human_gate }\n' }),
  'up-nobase': T('up-nobase', { tail: UPSTREAM_NOTE }),
  'up-same': T('up-same', { tail: UPSTREAM_NOTE }),
};
export const COPY: Record<string, string> = {
  'up-reset': T('up-reset'),
  'up-clean': T('up-clean', { purpose: 'my own purpose' }),
  'up-conflict': T('up-conflict', { purpose: 'my own purpose' }),
  'up-invalid': T('up-invalid').replace('  work: {', '  check: { type: builtin, builtin: human_gate }\n  work: {'),
  'up-nobase': T('up-nobase', { purpose: 'my own purpose' }),
};

export const WORKER_V1 = '# Worker\n\nDoes the work.\n\nKeeps notes.\n\nAsks when unsure.\n';
export const WORKER_V2 = '# Worker\n\nDoes the work.\n\nKeeps notes.\n\nAsks when unsure, early.\n';
export const WORKER_COPY = '# Worker, mine\n\nDoes the work.\n\nKeeps notes.\n\nAsks when unsure.\n';

/** The copies saved against the old release, then the new release shipped; the library is closed after. */
export async function beforeRelease(fx: Fixture): Promise<void> {
  for (const name of Object.keys(V2)) await fx.ship(name, T(name));
  await writeFile(join(fx.harness, 'roles', 'worker', 'role.md'), WORKER_V1);
  const library = await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness });
  const app = await buildApp({ library, web: false });
  const put = (name: string, source: string) => app.inject({ method: 'PUT', url: `${API}/templates/${name}`, payload: { source } });
  for (const [name, source] of Object.entries(COPY)) expect((await put(name, source)).statusCode, name).toBe(200);
  expect((await put('my-own', T('my-own', { purpose: 'a custom one' }))).statusCode).toBe(200);
  // the reviewer saved as shipped: unedited; the worker edited
  expect((await app.inject({ method: 'POST', url: `${API}/role`, payload: { name: 'reviewer', role_md: '# Reviewer\n\nReads the work.\n' } })).statusCode).toBe(200);
  expect((await app.inject({ method: 'POST', url: `${API}/role`, payload: { name: 'worker', role_md: WORKER_COPY, kit: { tools: ['shell.run'] } } })).statusCode).toBe(200);
  await library.history.settle();
  await app.close();
  await library.close();
  // the worker's base as a role save keeps it (roles/files.ts writeRoleSave with its built-in role); written here too, so
  // these tests hold whether or not the save passes it
  const v1 = { roleMd: Buffer.from(WORKER_V1), kit: Buffer.from(WORKER_KIT), revision: roleRevision(Buffer.from(WORKER_V1), Buffer.from(WORKER_KIT)) };
  await keepRoleBase({ root: await realpath(fx.root!) }, v1);
  // the new release
  for (const [name, source] of Object.entries(V2)) await fx.ship(name, source);
  await writeFile(join(fx.harness, 'roles', 'worker', 'role.md'), WORKER_V2);
  await writeFile(join(fx.harness, 'roles', 'reviewer', 'role.md'), '# Reviewer\n\nReads the work twice.\n');
  // a copy saved before bases were kept: its base is gone
  await rm(fx.at('templates', '.shipped-base', `${sha256Hex(T('up-nobase'))}.yaml`));
}
