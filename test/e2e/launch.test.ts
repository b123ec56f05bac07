/**
 * The Launch preview tab in a real browser (Debian's Chromium via
 * playwright-core): quick-fix's form has a tickets box; three tickets preview
 * as three runs, each with its folded prompts, and a value reading
 * {{inputs.…}} shows as that literal text with its warning.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, buildWeb, launch, type Served, serve } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('launch preview (e2e)', () => {
  let served: Served;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    buildWeb();
    browser = await launch();
    served = await serve();
    page = await browser.newPage();
    page.setDefaultTimeout(20_000);
  });
  afterAll(async () => {
    await page?.close();
    await browser?.close();
    await served?.close();
  });

  it('three tickets preview as three runs, prompts folded as text', async () => {
    await page.goto(`${served.base}/#/templates/quick-fix/launch`);
    const box = page.getByLabel(/^tickets/);
    await box.fill('DESK-1\nDESK-2\n<b>{x}</b>');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('.launch-run').count()).toBe(3);
    const third = page.locator('.launch-run').nth(2);
    // the value is text: no <b> element was made from it, and its braces stayed
    expect(await third.locator('b').count()).toBe(0);
    expect(await third.locator('[data-node="work"] pre.prompt').textContent()).toMatch(/^Fix <b>\{x\}<\/b> with/);
    expect(await page.locator('.launch-run').first().locator('[data-node="close"] pre.prompt').textContent()).toContain('DESK-1 with');
  });

  it('a ticket bringing a placeholder into a prompt is refused by the guard, with no runs', async () => {
    await page.goto(`${served.base}/#/templates/quick-fix/launch`);
    await page.reload();
    await page.getByLabel(/^tickets/).fill('DESK-1\n{{inputs.tickets}}');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('.launch-problems [data-code="input.introduces_machinery"]').count()).toBeGreaterThan(0);
    expect(await page.locator('.launch-run').count()).toBe(0);
  });

  it('a problem with the inputs shows its code and no runs', async () => {
    await page.goto(`${served.base}/#/templates/quick-fix/launch`);
    await page.reload();
    await page.getByLabel(/^tickets/).fill('');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('.launch-problems [data-code="input.missing"]').count()).toBe(1);
    expect(await page.locator('.launch-run').count()).toBe(0);
  });
});
