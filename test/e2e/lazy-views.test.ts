/**
 * The views that need CodeMirror (template, role, proposals) are loaded when
 * first opened, not with the list (src/web/main.ts). In Chromium: the list
 * draws without fetching them, a template opens with them, and a tab whose
 * view code is gone (the service was updated under it) says to reload
 * instead of failing with a raw import error.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserMissing, type Served, usePage } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('views loaded on first opening (e2e)', () => {
  let served: Served;
  let page: Page;
  usePage((s, p) => {
    served = s;
    page = p;
  });

  /** The background fetch of the other views once the list is drawn is held back: only what a view itself asks for loads. */
  const holdPrefetch = () =>
    page.addInitScript(() => {
      (globalThis as unknown as { requestIdleCallback: unknown }).requestIdleCallback = () => 0;
    });

  /** the page's scripts fetched so far, by file name */
  const scripts = () =>
    page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name.split('/').pop()!).filter((n) => n.endsWith('.js')));

  it('draws the list with only its own scripts, and fetches the editor once a template opens', async () => {
    await holdPrefetch();
    await page.goto(`${served.base}/`);
    await page.locator('ul[aria-label="Templates"] > li[data-name="quick-fix"]').waitFor();
    const listed = await scripts();
    const html = await (await fetch(`${served.base}/`)).text();
    const named = [...html.matchAll(/\/assets\/([\w-]+\.js)/g)].map((m) => m[1]);
    // nothing beyond what index.html names (the worker is named there but started only by a check)
    expect(listed.filter((f) => !named.includes(f))).toEqual([]);

    await page.goto(`${served.base}/#/templates/quick-fix`);
    await page.locator('.editor .cm-content').waitFor();
    expect((await scripts()).filter((f) => !named.includes(f)).length).toBeGreaterThan(0);
  });

  it('says to reload when a view’s code can no longer be fetched', async () => {
    await holdPrefetch();
    await page.goto(`${served.base}/`);
    await page.locator('ul[aria-label="Templates"] > li').first().waitFor();
    const html = await (await fetch(`${served.base}/`)).text();
    const named = new Set([...html.matchAll(/\/assets\/([\w-]+\.js)/g)].map((m) => m[1]));
    // as after an update: every script the list did not load is gone from the service
    await page.route('**/assets/*.js', (route) => {
      const file = new URL(route.request().url()).pathname.split('/').pop()!;
      return named.has(file) ? route.continue() : route.fulfill({ status: 404, body: 'gone' });
    });
    await page.goto(`${served.base}/#/templates/quick-fix`);
    const alert = page.locator('#main [role="alert"]');
    await alert.waitFor();
    const reload = page.locator('#main button', { hasText: 'Reload' });
    expect(await reload.count()).toBe(1);
    await page.unroute('**/assets/*.js');
    await Promise.all([page.waitForEvent('load'), reload.click()]);
    await page.locator('.editor .cm-content').waitFor();
  });
});
