/**
 * One validator (docs/settings-page.md): the problems the page's bundled
 * validator gives (src/web/validator.ts, running the built worker from
 * dist/web against GET /api/desk/catalogue) equal the server's exactly —
 * code, path, line, column, severity, message, in order — for every shipped
 * template, every template file under test/fixtures/, the hostile shapes at
 * the size cap, and names the library gains at run time (an operator role).
 * The server's answer is the propose card's problems (the save's validation
 * without writing); an invalid source's 422 from a save must say the same.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Problem } from '../../src/schema/errors.js';
import { packageRoot } from '../../src/paths.js';
import { HOSTILE_SHAPES } from '../fixtures/hostile/shapes.js';
import { browserMissing, type Served, usePage } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

/** every .yaml under a folder, recursively */
function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? yamlFiles(p) : f.endsWith('.yaml') ? [p] : [];
  });
}

interface Case {
  label: string;
  name: string;
  source: string;
}

const CASES: Case[] = [
  ...yamlFiles(join(packageRoot, 'harness', 'templates')).map((p) => ({ label: `shipped ${basename(p)}`, name: basename(p, '.yaml'), source: readFileSync(p, 'utf8') })),
  ...yamlFiles(join(packageRoot, 'test', 'fixtures')).map((p) => ({
    label: `fixture ${p.slice(packageRoot.length + 1)}`,
    name: basename(p, '.yaml'),
    source: readFileSync(p, 'utf8'),
  })),
  ...HOSTILE_SHAPES.map((s) => ({ label: `hostile: ${s.name}`, name: 'hostile', source: s.source() })),
];

/** a test-only module exposing the page's checkSource, served from the page's origin (the CSP stays on) */
const PROBE = '/assets/parity-probe-AAAAAAAA.js';
let probe = '';

describe.skipIf(missing !== null)('the page and the server give the same problems (e2e)', () => {
  let served: Served;
  let page: Page;
  usePage((s, p) => {
    served = s;
    page = p;
  });

  beforeAll(async () => {
    const out = await build({
      stdin: {
        contents: "import { PageValidator } from './src/web/validator.ts'; const v = new PageValidator(); Object.assign(window, { deskValidator: { checkSource: (s, n) => v.checkSource(s, n), invalidateCatalogue: () => v.invalidateCatalogue() } });",
        resolveDir: packageRoot,
        loader: 'ts',
      },
      bundle: true,
      format: 'esm',
      write: false,
      logLevel: 'error',
    });
    probe = out.outputFiles[0]!.text;
    expect(CASES.filter((c) => c.label.startsWith('shipped')).length).toBeGreaterThanOrEqual(8);
    expect(CASES.filter((c) => c.label.startsWith('fixture')).length).toBeGreaterThanOrEqual(9);
  });

  async function open(): Promise<void> {
    await page.route(`**${PROBE}`, (r) => r.fulfill({ body: probe, contentType: 'text/javascript' }));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${served.base}/`);
    await page.addScriptTag({ url: PROBE, type: 'module' });
    await page.waitForFunction(() => 'deskValidator' in globalThis);
    expect(errors).toEqual([]);
  }

  const inPage = (source: string, name: string | undefined): Promise<Problem[]> =>
    page.evaluate(
      ([s, n]) => (globalThis as unknown as { deskValidator: { checkSource(s: string, n?: string): Promise<Problem[]> } }).deskValidator.checkSource(s, n ?? undefined),
      [source, name ?? null] as const,
    );

  const api = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(`${served.base}/api/desk${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: r.status, json: (await r.json()) as { problems?: Problem[]; code?: string } };
  };
  const onServer = async (source: string, name: string): Promise<Problem[]> => {
    const r = await api('POST', '/templates/propose', { name, source });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    return r.json.problems!;
  };

  it('every shipped template, fixture and hostile shape: identical problems', async () => {
    await open();
    let withProblems = 0;
    for (const c of CASES) {
      const [page, server] = [await inPage(c.source, c.name), await onServer(c.source, c.name)];
      expect(page, c.label).toEqual(server);
      if (server.length > 0) withProblems++;
    }
    // the comparison covered problems, not only clean templates
    expect(withProblems).toBeGreaterThanOrEqual(5);
  });

  it('an invalid source: the page says what the refused save says (422)', async () => {
    await open();
    let refused = 0;
    for (const c of CASES) {
      const mine = await inPage(c.source, c.name);
      if (!mine.some((p) => p.severity === 'error')) continue;
      const put = await api('PUT', `/templates/${c.name}`, { source: c.source }, { 'if-none-match': '*' });
      if (put.status !== 422) continue; // e.g. a name the library holds: the precondition answers first
      expect(put.json.code).toBe('invalid_template');
      expect(mine, c.label).toEqual(put.json.problems);
      refused++;
    }
    expect(refused).toBeGreaterThanOrEqual(3);
  });

  it('names the library gains at run time: an operator role, after the catalogue is fetched again', async () => {
    await open();
    const source = readFileSync(join(packageRoot, 'harness', 'templates', 'quick-fix.yaml'), 'utf8').replace(/role: worker\b/g, 'role: auditor');
    const before = await inPage(source, 'quick-fix');
    expect(before.map((p) => p.code)).toContain('model.role_unknown');
    expect(before).toEqual(await onServer(source, 'quick-fix'));

    const role = await api('POST', '/role', { name: 'auditor', role_md: '# Auditor\n', kit: { tools: ['workspace.read', 'workspace.write'] } });
    expect(role.status).toBe(200);
    await page.evaluate(() => (globalThis as unknown as { deskValidator: { invalidateCatalogue(): void } }).deskValidator.invalidateCatalogue());
    const after = await inPage(source, 'quick-fix');
    expect(after.map((p) => p.code)).not.toContain('model.role_unknown');
    expect(after).toEqual(await onServer(source, 'quick-fix'));
  });

  it('no name: the page checks without one, as the server does with the header name', async () => {
    await open();
    const source = readFileSync(join(packageRoot, 'test', 'fixtures', 'cli', 'wrong-name.yaml'), 'utf8');
    const unnamed = await inPage(source, undefined);
    expect(unnamed.map((p) => p.code)).not.toContain('name.mismatch');
    const header = /^ {2}name: (\S+)/m.exec(source)![1]!;
    expect(unnamed).toEqual(await onServer(source, header));
  });
});
