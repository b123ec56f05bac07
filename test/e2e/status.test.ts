/**
 * The page's one status area and its contact with the service: a message at
 * a time, coloured by kind, an alert only for an error, gone when the text
 * changes; a banner when the events stream drops (the service stopped) and
 * when it is back, with the open template checked again then. And the
 * header's sync indicator: absent with no remote, never stuck on "syncing…".
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cursorToLineEnd, editorText, setEditorText } from './editor-page.js';
import { browserMissing, serve, useBrowser } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('status area and connection (e2e)', () => {
  const t = useBrowser();

  it('one message at a time: a refusal is a warning, not a success; typing clears it; Saved is cleared by a conflict', async () => {
    const served = t.defer(await serve());
    const page = await t.page();
    await page.goto(`${served.base}/#/templates/write`);
    await expect.poll(() => editorText(page, 'write')).toContain('name: write');
    const source = await editorText(page, 'write');
    // an error in the text: Ctrl+S says why it cannot save, as a warning (never the green of a success)
    await setEditorText(page, 'write', source.replace(/profile: \w+/, 'profile: nope'));
    await expect.poll(() => page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
    await cursorToLineEnd(page, 'write', 'name: write');
    await page.keyboard.press('Control+s');
    const said = page.locator('.said');
    await expect.poll(() => said.getAttribute('data-kind')).toBe('warning');
    expect(await page.locator('.said').count()).toBe(1);
    // the text changes: what was said about the old text goes
    await page.keyboard.type(' ');
    await expect.poll(() => said.count()).toBe(0);

    // a save's "Saved." goes when the text changes again
    await setEditorText(page, 'write', `${source}# one\n`);
    await expect.poll(() => page.getByRole('button', { name: 'Save', exact: true }).isEnabled()).toBe(true);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('.said[data-kind="success"]', { hasText: 'Saved.' }).waitFor();
    expect(await page.locator('.said').getAttribute('role')).toBeNull();
    await setEditorText(page, 'write', `${source}# two\n`);
    await expect.poll(() => page.locator('.said').count()).toBe(0);
  });

  it('the service stopped: a banner says contact is lost; started again: it says so, and the source is checked again', async () => {
    const dir = t.tempDir('desk-e2e-restart-');
    const root = join(dir, 'library');
    let served = await serve({ root });
    // whichever service runs at the end is stopped before the folder goes
    t.defer({ close: () => served.app.close() });
    const port = Number(new URL(served.base).port);
    const page = await t.page();
    await page.goto(`${served.base}/#/templates/quick-fix`);
    await expect.poll(() => editorText(page, 'quick-fix')).toContain('name: quick-fix');
    // a role the library does not have yet: an error here
    await setEditorText(page, 'quick-fix', (await editorText(page, 'quick-fix')).replace(/role: worker\b/g, 'role: auditor'));
    const unknown = page.locator('ul[aria-label="Problems"] > li[data-code="model.role_unknown"]');
    await unknown.first().waitFor();

    await served.app.close();
    const banner = page.locator('#connection');
    await expect.poll(() => banner.getAttribute('data-kind')).toBe('warning');
    expect(await banner.isVisible()).toBe(true);

    // the role arrives while the service is down; it is read when the service starts again
    mkdirSync(join(root, 'roles', 'auditor'), { recursive: true });
    writeFileSync(join(root, 'roles', 'auditor', 'role.md'), '# Auditor\n\nReads and reports.\n');
    writeFileSync(join(root, 'roles', 'auditor', 'kit.json'), '{"tools": ["workspace.read", "workspace.write"]}\n');
    served = await serve({ root, port });
    await expect.poll(() => banner.getAttribute('data-kind'), { timeout: 30_000 }).toBe('success');
    await expect.poll(() => unknown.count()).toBe(0);
  });

  it('with no remote the sync indicator is not shown; a failed Sync now does not stay on "syncing…"', async () => {
    const served = t.defer(await serve());
    const page = await t.page();
    await page.goto(`${served.base}/#/`);
    await page.locator('.library').waitFor();
    // GET /sync answered no_remote: the indicator is hidden (the hidden attribute wins over its flex display)
    await expect.poll(() => page.locator('#sync-indicator').evaluate((el) => el.hasAttribute('hidden'))).toBe(true);
    expect(await page.locator('#sync-indicator').isVisible()).toBe(false);

    // a remote whose round fails: the indicator says so, never "syncing…" for ever
    const page2 = await t.page();
    const status = { remote: 'git@example.invalid:team/library.git', last_sync: null, last_error: null, ahead: 0, behind: 0, diverged: [], diverged_roles: [] };
    await page2.route('**/api/desk/sync', (route) =>
      route.request().method() === 'GET'
        ? route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(status) })
        : route.fulfill({ status: 502, contentType: 'application/problem+json', body: JSON.stringify({ code: 'sync_failed', title: 'Bad Gateway', detail: 'the remote did not answer', status: 502 }) }),
    );
    await page2.goto(`${served.base}/#/`);
    const button = page2.locator('#sync-indicator').getByRole('button', { name: 'Sync now' });
    await button.waitFor();
    await button.click();
    await expect.poll(() => page2.locator('#sync-indicator .sync-text').textContent()).not.toContain('syncing');
    expect(await page2.locator('#sync-indicator .sync-text').textContent()).toContain('not synced');
  });
});
