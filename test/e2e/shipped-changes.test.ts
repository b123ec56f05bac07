/**
 * The page when the shipped version moved under a saved copy, and when the
 * service wants a token: acknowledge, rebase preview → use → save, and the
 * token form. Shipped files are read once at start, so each test copies the
 * harness, saves, changes the shipped file and starts the service again.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { harnessDir } from '../../src/paths.js';
import { browserMissing, buildWeb, launch, type Served, serve } from './harness.js';

const missing = browserMissing();

describe.skipIf(missing !== null)('settings page: shipped changes and the token (e2e)', () => {
  let browser: Browser;
  let page: Page;
  let served: Served | undefined;
  let dir: string;

  beforeAll(async () => {
    buildWeb();
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await page?.close();
    await served?.close();
    served = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const MY_PURPOSE = '  purpose: My own short purpose for quick fixes';
  const OLD_GATE = 'prompt: Approve to land this fix, or reject it with a note for the worker.';
  const NEW_GATE = 'prompt: Approve to land this fix, or reject it with a note saying what to change.';

  /** quick-fix saved with my purpose, then the shipped gate prompt changes: the copy reads shipped_changed_since. */
  async function shippedMovedUnderMyCopy(): Promise<{ root: string; mine: string; harness: string }> {
    dir = mkdtempSync(join(tmpdir(), 'desk-e2e-shipped-'));
    const harness = join(dir, 'harness');
    const root = join(dir, 'library');
    cpSync(harnessDir, harness, { recursive: true });
    served = await serve({ root, harnessDir: harness });
    const shipped = readFileSync(join(harness, 'templates', 'quick-fix.yaml'), 'utf8');
    expect(shipped).toContain(OLD_GATE);
    const mine = shipped.replace(/^ {2}purpose: .*$/m, MY_PURPOSE);
    const put = await fetch(`${served.base}/api/desk/templates/quick-fix`, {
      method: 'PUT',
      headers: { origin: served.base, 'content-type': 'application/json' },
      body: JSON.stringify({ source: mine }),
    });
    expect(put.status).toBe(200);
    await served.close();
    writeFileSync(join(harness, 'templates', 'quick-fix.yaml'), shipped.replace(OLD_GATE, NEW_GATE));
    served = await serve({ root, harnessDir: harness });
    page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${served.base}/#/templates/quick-fix`);
    await page.locator('.page-head h2 .badge[data-state="shipped_changed_since"]').waitFor();
    return { root, mine, harness };
  }

  it('acknowledges the new shipped version: the copy is kept and reads edited', async () => {
    const { root, mine } = await shippedMovedUnderMyCopy();
    expect(await page.locator('.page-head .sentence').getAttribute('data-state')).toBe('shipped_changed_since');
    await page.getByRole('button', { name: 'Acknowledge shipped version' }).click();
    await page.locator('.page-head h2 .badge[data-state="edited"]').waitFor();
    expect(readFileSync(join(root, 'templates', 'quick-fix.yaml'), 'utf8')).toBe(mine);
    expect(await page.getByRole('button', { name: 'Acknowledge shipped version' }).count()).toBe(0);
  });

  it('previews a rebase, loads the merge into the editor and saves it', async () => {
    const { root } = await shippedMovedUnderMyCopy();
    await page.getByRole('button', { name: 'Preview rebase' }).click();
    const preview = page.getByRole('region', { name: 'Rebase preview' });
    await preview.waitFor();
    expect(await preview.getAttribute('data-conflicts')).toBe('0');
    // no conflict to choose for: the merge is checked at once
    await expect.poll(() => preview.getAttribute('data-status')).toBe('valid');

    await preview.getByRole('button', { name: 'Use this' }).click();
    // the merge is in the editor, unsaved, until Save
    const save = page.getByRole('button', { name: 'Save', exact: true });
    await expect.poll(() => save.isEnabled()).toBe(true);
    await save.click();
    await page.locator('.page-head h2 .badge[data-state="edited"]').waitFor();
    const onDisk = readFileSync(join(root, 'templates', 'quick-fix.yaml'), 'utf8');
    expect(onDisk).toContain(MY_PURPOSE);
    expect(onDisk).toContain(NEW_GATE);
  });

  it('asks for the token on a 401, again when refused, and keeps it for the tab', async () => {
    served = await serve({ token: 'open-sesame' });
    page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${served.base}/#/`);
    const dialog = page.getByRole('dialog', { name: 'Access token' });
    await dialog.getByRole('textbox', { name: 'Token' }).fill('wrong');
    await dialog.getByRole('button', { name: 'Use token' }).click();
    await dialog.getByText('The token was refused', { exact: false }).waitFor();
    await dialog.getByRole('textbox', { name: 'Token' }).fill('open-sesame');
    await dialog.getByRole('button', { name: 'Use token' }).click();
    await page.getByRole('link', { name: 'template quick-fix, shipped', exact: true }).waitFor();
    expect(await page.evaluate("sessionStorage.getItem('desk-library.token')")).toBe('open-sesame');

    await page.reload();
    await page.getByRole('link', { name: 'template quick-fix, shipped', exact: true }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Access token' }).count()).toBe(0);
  });
});
