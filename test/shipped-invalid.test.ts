/**
 * A broken harness refuses the start (src/library/shipped.ts, checkShipped):
 * an invalid shipped template, or an invalid read-only template code
 * registers, is a `shipped_invalid` DeskError naming each template and each
 * problem; the real server prints it as one stderr line, with no stack, and
 * exits non-zero. Nothing is created, locked or recovered first.
 */
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { isDeskError } from '../src/errors.js';
import { openLibrary } from '../src/library/library.js';
import { packageRoot } from '../src/paths.js';
import { validateTemplate } from '../src/template/validate.js';
import { killChild, spawnChild } from './children.js';
import { ALPHA, type Fixture, fixture } from './http-fixture.js';
import { testSpawner } from './test-spawner.js';

/** alpha with an unknown key and a cord to a node that does not exist: two problems, both errors. */
const BROKEN = ALPHA.replace('version: 1\n', 'version: 1\ncolour: blue\n').replace('to: gate.in', 'to: nowhere.in');

async function refusal(open: Promise<unknown>): Promise<Error> {
  const e = await open.then(
    () => null,
    (err: unknown) => err as Error,
  );
  if (e === null) throw new Error('the library opened');
  return e;
}

describe('openLibrary', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx.cleanup();
  });

  test('an invalid shipped template: shipped_invalid naming it and each problem; the root untouched', async () => {
    fx = await fixture();
    await fx.ship('alpha', BROKEN);
    const e = await refusal(openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness }));
    expect(isDeskError(e) && e.code).toBe('shipped_invalid');
    expect(e.message).toContain('alpha.yaml');
    const codes = validateTemplate(BROKEN, { name: 'alpha', catalogue: { templates: new Set(), roles: new Set(['worker']) } })
      .problems.map((p) => p.code);
    expect(codes).toEqual(expect.arrayContaining(['key.unknown']));
    expect(codes.length).toBeGreaterThan(1);
    for (const code of codes) expect(e.message).toContain(code);
    expect(e.message).not.toContain('beta');
    expect(e.message).not.toContain('\n');
    expect(existsSync(fx.root!)).toBe(false);
  });

  test("an invalid read-only template, with the package's own harness it is written for: shipped_invalid naming it", async () => {
    fx = await fixture();
    const e = await refusal(openLibrary({ spawner: testSpawner, root: null, readOnlyTemplates: new Map([['form', BROKEN.replace('name: alpha', 'name: form')]]) }));
    expect(isDeskError(e) && e.code).toBe('shipped_invalid');
    expect(e.message).toContain("'form'");
  });

  test('a valid harness opens (the near miss), and so does the package harness with its read-only templates', async () => {
    fx = await fixture();
    await (await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness })).close();
    await (await openLibrary({ spawner: testSpawner, root: null })).close();
  });
});

describe('the real server', () => {
  let child: ChildProcess | undefined;
  let dir = '';
  afterEach(() => {
    if (child) killChild(child);
    child = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('with a broken harness template exits non-zero with one stderr line naming it, no stack', async () => {
    // a copy of the built package whose harness has one broken template (the server reads its own harness/)
    dir = mkdtempSync(join(tmpdir(), 'desk-shipped-'));
    const pkg = join(dir, 'pkg');
    for (const f of ['package.json', 'dist', 'harness']) cpSync(join(packageRoot, f), join(pkg, f), { recursive: true });
    symlinkSync(join(packageRoot, 'node_modules'), join(pkg, 'node_modules'));
    writeFileSync(join(pkg, 'harness', 'templates', 'write.yaml'), BROKEN.replace('name: alpha', 'name: write'));

    const root = join(dir, 'lib');
    const c = spawnChild(process.execPath, [join(pkg, 'dist', 'src', 'server.js')], {
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'info', PORT: '0', DESK_LIBRARY_ROOT: root },
    });
    child = c;
    let out = '';
    let err = '';
    c.stdout!.on('data', (d) => {
      out += d;
      // the old code starts: stop it so the test ends with its failure
      if (/Server listening/.test(out)) c.kill('SIGTERM');
    });
    c.stderr!.on('data', (d) => {
      err += d;
    });
    const code = await new Promise<number | null>((resolve) => c.once('exit', (n) => resolve(n)));
    expect(out).not.toMatch(/Server listening/);
    expect(code).not.toBe(0);
    const lines = err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('write.yaml');
    expect(lines[0]).toContain('key.unknown');
    expect(err).not.toMatch(/\n\s+at /);
    expect(existsSync(join(root, '.desk-library.lock'))).toBe(false);
  });
});
