import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { main } from '../src/cli.js';
import { openLibrary } from '../src/library/library.js';
import { harnessDir } from '../src/paths.js';
import { testSpawner } from './test-spawner.js';

/**
 * The CLI and the service check a template against one catalogue, built by
 * one function (src/library/catalogue.ts): a template whose base is the
 * read-only `ticket-input` is clean for both.
 */

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** quick-fix, renamed, varying the read-only input template. */
const VARIANT = readFileSync(join(harnessDir, 'templates', 'quick-fix.yaml'), 'utf8')
  .replace('name: quick-fix', 'name: intake-variant')
  .replace('base: ticket-completion', 'base: ticket-input');

test('base: ticket-input — no base.unknown from the CLI, and none from the service', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'desk-cli-cat-'));
  dirs.push(dir);
  await mkdir(join(dir, 'templates'));
  const file = join(dir, 'templates', 'intake-variant.yaml');
  await writeFile(file, VARIANT);

  let out = '';
  const code = await main(['validate', '--format', 'json', file], { out: (s) => (out += s), err: () => {} });
  const results = JSON.parse(out) as { problems: { code: string }[] }[];
  const cliCodes = results.flatMap((r) => r.problems.map((p) => p.code));
  expect(cliCodes).not.toContain('base.unknown');
  expect(code).toBe(0);

  const lib = await openLibrary({ spawner: testSpawner, root: dir });
  try {
    const serviceCodes = (await lib.getTemplate('intake-variant'))!.problems.map((p) => p.code);
    expect(serviceCodes).not.toContain('base.unknown');
    expect(cliCodes.sort()).toEqual(serviceCodes.sort());
  } finally {
    await lib.close();
  }
});
