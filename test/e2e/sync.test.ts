/**
 * Sync on the page: two desks (two apps on two roots, one bare repository)
 * make a conflicting change; on the desk that merged second the header's
 * sync indicator names the diverged template, its page offers the team's
 * version (difference, rebase onto it), and saving the rebased text settles
 * it, on that desk and, after a sync, on the other.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { AxeBuilder } from '@axe-core/playwright';
import { browserMissing, callApi, useBrowser } from './harness.js';
import { headerLines, NARROW, tooWide } from './narrow.js';

/** axe's violations, by rule and the first node's selector; legacy mode runs axe in the page itself (as a11y.test.ts does). */
async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
  return result.violations.map((v) => `${v.id}: ${v.nodes[0]?.target.join(' ')}`);
}

const missing = browserMissing();
if (missing) console.warn(missing);

interface Desk {
  app: App;
  base: string;
}

describe.skipIf(missing !== null)('sync on the page (e2e)', () => {
  const t = useBrowser();
  let dir: string;

  async function desk(name: string, bare: string): Promise<Desk> {
    // the interval is out of the way: each sync here is asked for
    const app = await buildApp({ libraryOptions: { root: join(dir, name) }, sync: { remote: bare, intervalMs: 3_600_000 } });
    t.defer(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.server.address() as { port: number };
    return { app, base: `http://127.0.0.1:${addr.port}` };
  }
  const api = async (d: Desk, method: string, path: string, body?: unknown) => {
    const r = await callApi(d.base, method, path, method === 'GET' ? undefined : (body ?? {}));
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };

  it('a diverged template is named in the header, and rebasing onto the team version settles it', async () => {
    dir = t.tempDir('desk-e2e-sync-');
    const bare = join(dir, 'team.git');
    execFileSync('git', ['init', '--bare', '-q', '-b', 'main', bare]);
    const a = await desk('a', bare);
    const b = await desk('b', bare);
    await api(b, 'POST', '/sync');
    const shipped = ((await (await fetch(`${a.base}/api/desk/templates/quick-fix`)).json()) as { source: string }).source;
    const fromA = shipped.replace(/^ {2}purpose: .*$/m, '  purpose: Purpose from desk A');
    const fromB = shipped.replace(/^ {2}purpose: .*$/m, '  purpose: Purpose from desk B');
    expect((await api(a, 'PUT', '/templates/quick-fix', { source: fromA })).status).toBe(200);
    await api(a, 'POST', '/sync');
    expect((await api(b, 'PUT', '/templates/quick-fix', { source: fromB })).status).toBe(200);
    expect((await api(b, 'POST', '/sync')).body.diverged).toEqual(['quick-fix']);

    const page = await t.page();
    await page.goto(`${b.base}/#/`);
    const indicator = page.locator('#sync-indicator');
    await indicator.getByRole('link', { name: 'quick-fix' }).waitFor();
    expect(await indicator.getByRole('button', { name: 'Sync now' }).count()).toBe(1);

    // a phone-sized window: the header in two lines with the sync status in them, nothing wider than the window, axe clean
    await page.setViewportSize(NARROW);
    expect(await tooWide(page), 'the library').toBe('');
    expect(await headerLines(page)).toBeLessThanOrEqual(2);
    expect(await violations(page), 'the library at 390 px').toEqual([]);
    await indicator.getByRole('link', { name: 'quick-fix' }).click();
    await page.locator('.page-head h2 .badge[data-state="diverged"]').waitFor();
    expect(await tooWide(page), 'a diverged template').toBe('');
    expect(await violations(page), 'a diverged template at 390 px').toEqual([]);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.getByRole('button', { name: 'Settle with the team library' }).click();
    const panel = page.getByRole('region', { name: 'Diverged from the team library' });
    await panel.getByRole('button', { name: 'Show the difference' }).click();
    // the merge view draws both texts; the team's purpose is on its side
    await expect.poll(() => panel.textContent()).toContain('Purpose from desk A');

    await panel.getByRole('button', { name: 'Rebase onto theirs' }).click();
    await panel.getByRole('radio', { name: /Take theirs/ }).waitFor();
    // the header's indicator, the diff and the choices: nothing axe finds
    expect(await violations(page)).toEqual([]);
    await panel.getByRole('radio', { name: /Take theirs/ }).check();
    await panel.getByRole('button', { name: 'Use this' }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(async () => (await api(b, 'GET', '/sync')).body.diverged).toEqual([]);
    await expect.poll(() => indicator.getByRole('link', { name: 'quick-fix' }).count()).toBe(0);

    await api(b, 'POST', '/sync');
    await api(a, 'POST', '/sync');
    expect(((await (await fetch(`${a.base}/api/desk/templates/quick-fix`)).json()) as { source: string }).source).toBe(fromA);

    // desk B's own text, kept on a local ref when the sync diverged, is in its History marked as this desk's only
    const history = (await api(b, 'GET', '/templates/quick-fix/history?limit=100')).body as { versions: { commit: string; shared: boolean }[] };
    const own = history.versions.filter((v) => !v.shared).map((v) => v.commit);
    expect(own.length).toBeGreaterThan(0);
    await page.goto(`${b.base}/#/templates/quick-fix/history`);
    const items = page.getByRole('list', { name: 'Versions of quick-fix' }).locator('.history-item');
    await expect.poll(() => items.count()).toBe(history.versions.length);
    const marked = await items.evaluateAll((lis) => lis.filter((li) => li.querySelector('.tag.own')?.textContent === 'this desk only').map((li) => li.getAttribute('data-commit')));
    expect(marked).toEqual(own);
    // it differs from the shared ones by its subject or its commit
    const lines = await items.evaluateAll((lis) => lis.map((li) => `${li.querySelector('.history-message')?.textContent} ${li.querySelector('.history-commit')?.textContent}`));
    expect(new Set(lines).size).toBe(lines.length);
  });
});
