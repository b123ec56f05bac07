/**
 * The page when the shipped version moved under a saved copy, and when the
 * service wants a token: acknowledge, rebase preview → use → save, and the
 * token form. Shipped files are read once at start, so each test starts from
 * a copy of an older shipped version (harness.ts shippedMovedUnder).
 */
import { AxeBuilder } from '@axe-core/playwright';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { NARROW, tooWide } from './narrow.js';
import { browserMissing, serve, shippedMovedUnder, useBrowser } from './harness.js';

const missing = browserMissing();

describe.skipIf(missing !== null)('settings page: shipped changes and the token (e2e)', () => {
  const t = useBrowser();
  let page: Page;

  const MY_PURPOSE = '  purpose: My own short purpose for quick fixes';
  const OLD_GATE = 'prompt: Approve to land this fix, or reject it with a note for the worker.';
  const NEW_GATE = 'prompt: Approve to land this fix, or reject it with a note saying what to change.';

  /** quick-fix saved with my purpose, then the shipped gate prompt changes: the copy reads shipped_changed_since. */
  async function shippedMovedUnderMyCopy(): Promise<{ root: string; mine: string }> {
    const served = t.defer(
      await shippedMovedUnder(
        'quick-fix',
        (s) => s.replace(/^ {2}purpose: .*$/m, MY_PURPOSE),
        (s) => {
          expect(s).toContain(OLD_GATE);
          return s.replace(OLD_GATE, NEW_GATE);
        },
      ),
    );
    page = await t.page();
    await page.goto(`${served.base}/#/templates/quick-fix`);
    await page.locator('.page-head h2 .badge[data-state="shipped_changed_since"]').waitFor();
    return { root: served.root, mine: served.copy };
  }

  it('acknowledges the new shipped version: the copy is kept and reads edited', async () => {
    const { root, mine } = await shippedMovedUnderMyCopy();
    expect(await page.locator('.page-head .sentence').getAttribute('data-state')).toBe('shipped_changed_since');
    await page.getByRole('button', { name: 'Acknowledge shipped version' }).click();
    await page.locator('.page-head h2 .badge[data-state="edited"]').waitFor();
    expect(readFileSync(join(root, 'templates', 'quick-fix.yaml'), 'utf8')).toBe(mine);
    expect(await page.getByRole('button', { name: 'Acknowledge shipped version' }).count()).toBe(0);
  });

  it('previews a rebase, loads the merge into the editor and saves it, on a phone-sized window', async () => {
    const { root } = await shippedMovedUnderMyCopy();
    // drawn at 390 px from the start, as on a phone
    await page.setViewportSize(NARROW);
    await page.getByRole('button', { name: 'Preview rebase' }).click();
    const preview = page.getByRole('region', { name: 'Rebase preview' });
    await preview.waitFor();
    expect(await preview.getAttribute('data-conflicts')).toBe('0');
    // no conflict to choose for: the merge is checked at once
    await expect.poll(() => preview.getAttribute('data-status')).toBe('valid');
    expect(await tooWide(page), 'the rebase preview at 390 px').toBe('');
    const axe = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
    expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), 'the rebase preview at 390 px').toEqual([]);

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

  it('asks for the token on a 401, again when refused (the events stream waits), and keeps it for the tab', async () => {
    const served = t.defer(await serve({ token: 'open-sesame' }));
    page = await t.page();
    const streams: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/desk/events') streams.push(r.url());
    });
    await page.goto(`${served.base}/#/`);
    const dialog = page.getByRole('dialog', { name: 'Sign in' });
    await dialog.getByRole('textbox', { name: 'Your token' }).fill('wrong');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.locator('.token-refused').waitFor();
    // the form fits a phone-sized window, and axe finds nothing in it there
    await page.setViewportSize(NARROW);
    expect(await tooWide(page)).toBe('');
    const axe = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
    expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), 'the sign-in dialog at 390 px').toEqual([]);
    await page.setViewportSize({ width: 1280, height: 720 });
    // a refused token knocks no more: the stream (which once retried every 5 s) waits for a new token
    await page.waitForTimeout(6000);
    expect(streams).toEqual([]);
    // and no contact banner was shown: there was no contact to lose
    expect(await page.locator('#connection').isVisible()).toBe(false);
    await dialog.getByRole('textbox', { name: 'Your token' }).fill('open-sesame');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'template quick-fix, shipped', exact: true }).waitFor();
    expect(await page.evaluate("sessionStorage.getItem('desk-library.token')")).toBe('open-sesame');
    await expect.poll(() => streams.length).toBeGreaterThan(0);

    await page.reload();
    await page.getByRole('link', { name: 'template quick-fix, shipped', exact: true }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Sign in' }).count()).toBe(0);
    // Sign out forgets the tab's token and asks again
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('dialog', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate("sessionStorage.getItem('desk-library.token')")).toBeNull();
  });
});
