/**
 * The History panel in a real browser: two saves through the API show as
 * versions on the template's History tab; Diff shows the text and graph
 * diff; Restore asks first (Cancel has the focus) and then the bytes on disk
 * are the first save's. The role page's History restores the same way.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { editorText, setEditorText } from './editor-page.js';
import { browserMissing, callApi, type Served, usePage } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('history panel (e2e)', () => {
  let served: Served;
  let page: Page;
  // page.evaluate takes strings: the test files are compiled without the DOM lib
  usePage((s, p) => {
    served = s;
    page = p;
  });

  const api = (path: string, method: string, body: unknown) => callApi(served.base, method, path, body);

  it('lists two saves, diffs one, and restores the first: the bytes on disk are its bytes', async () => {
    const shipped = (await (await fetch(`${served.base}/api/desk/templates/quick-fix`)).json()) as { source: string };
    const first = shipped.source.replace(/^ {2}purpose: .*$/m, '  purpose: The first purpose');
    const second = shipped.source.replace(/^ {2}purpose: .*$/m, '  purpose: The second purpose');
    expect((await api('/templates/quick-fix', 'PUT', { source: first })).status).toBe(200);
    expect((await api('/templates/quick-fix', 'PUT', { source: second })).status).toBe(200);

    await page.goto(`${served.base}/#/templates/quick-fix/history`);
    const list = page.getByRole('list', { name: 'Versions of quick-fix' });
    await expect.poll(() => list.locator('.history-item').count()).toBe(2);
    const [newest, oldest] = [list.locator('.history-item').nth(0), list.locator('.history-item').nth(1)];
    expect(await newest.locator('.history-message').textContent()).toMatch(/^save quick-fix/);
    // two saves with no note: each entry names its commit, says who and when (relative, the exact time in its title)
    const entries = await list.locator('.history-item').evaluateAll((lis) =>
      lis.map((li) => {
        const time = li.querySelector('time');
        return { commit: li.querySelector('.history-commit')?.textContent, data: li.getAttribute('data-commit'), who: li.querySelector('.history-who')?.textContent, at: time?.getAttribute('datetime'), title: time?.getAttribute('title'), shown: time?.textContent, shared: li.querySelector('.tag.own') === null };
      }),
    );
    expect(entries.map((e) => e.commit)).toEqual(entries.map((e) => e.data?.slice(0, 7)));
    expect(new Set(entries.map((e) => e.commit)).size).toBe(2);
    for (const e of entries) {
      expect(e.who).toBe('127.0.0.1');
      expect(e.at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect(e.title).toBeTruthy();
      expect(e.shown).not.toBe(e.title);
      expect(e.shared).toBe(true);
    }
    expect(await newest.locator('.tag.current').count()).toBe(1);
    // the current version has nothing to restore
    expect(await newest.getByRole('button', { name: /^Restore/ }).count()).toBe(0);

    await oldest.getByRole('button', { name: /^Diff/ }).click();
    // the page's diff view draws it (text and graph); the version's line is in it
    await expect.poll(() => page.locator('.history-diff').textContent()).toContain('The first purpose');

    await oldest.getByRole('button', { name: /^Restore/ }).click();
    const confirm = page.getByRole('group', { name: 'Confirm restore' });
    await confirm.waitFor();
    expect(await page.evaluate<string | null>('document.activeElement && document.activeElement.textContent')).toBe('Cancel');
    await page.keyboard.press('Enter');
    await expect.poll(() => confirm.count()).toBe(0);
    expect(readFileSync(join(served.root, 'templates', 'quick-fix.yaml'), 'utf8')).toBe(second);

    await oldest.getByRole('button', { name: /^Restore/ }).click();
    await confirm.getByRole('button', { name: 'Yes, restore' }).click();
    await expect.poll(() => list.locator('.history-item').count()).toBe(3);
    expect(await list.locator('.history-item').first().locator('.history-message').textContent()).toMatch(/^restore quick-fix to [0-9a-f]{7}$/);
    expect(readFileSync(join(served.root, 'templates', 'quick-fix.yaml'), 'utf8')).toBe(first);
    expect(await list.locator('.history-item').first().locator('.tag.current').count()).toBe(1);
    // axe-core on the panel (usePage's tab has no context of its own, which AxeBuilder needs)
    // evaluated, not a script tag: the page's CSP (script-src 'self') refuses inline scripts
    await page.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
    const violations = await page.evaluate<string[]>("axe.run('#panel-history').then((r) => r.violations.map((v) => v.id))");
    expect(violations).toEqual([]);
  });

  it('a version no longer valid is not restored: the alert takes the focus and lists the problems', async () => {
    expect((await api('/role', 'POST', { name: 'checker', role_md: '# Checker\n\nChecks.\n' })).status).toBe(200);
    const shipped = (await (await fetch(`${served.base}/api/desk/templates/quick-fix`)).json()) as { source: string };
    const withChecker = shipped.source.replaceAll('role: worker', 'role: checker');
    const second = shipped.source.replace(/^ {2}purpose: .*$/m, '  purpose: The second purpose');
    expect((await api('/templates/quick-fix', 'PUT', { source: withChecker })).status).toBe(200);
    expect((await api('/templates/quick-fix', 'PUT', { source: second })).status).toBe(200);
    expect((await callApi(served.base, 'DELETE', '/roles/checker')).status).toBe(204);
    await page.goto(`${served.base}/#/templates/quick-fix/history`);
    const list = page.getByRole('list', { name: 'Versions of quick-fix' });
    await expect.poll(() => list.locator('.history-item').count()).toBe(2);
    await list.locator('.history-item').nth(1).getByRole('button', { name: /^Restore/ }).click();
    await page.getByRole('group', { name: 'Confirm restore' }).getByRole('button', { name: 'Yes, restore' }).click();
    const alert = page.locator('#panel-history [role="alert"]');
    await alert.waitFor();
    expect(await page.evaluate<string | null>("document.activeElement && document.activeElement.getAttribute('role')")).toBe('alert');
    expect(await page.locator('#panel-history .problems li').count()).toBeGreaterThan(0);
    expect(readFileSync(join(served.root, 'templates', 'quick-fix.yaml'), 'utf8')).toBe(second);
    expect(await list.locator('.history-item').count()).toBe(2);
  });

  it('pages: twenty versions, then Older versions brings the rest and takes the focus', async () => {
    const shipped = (await (await fetch(`${served.base}/api/desk/templates/quick-fix`)).json()) as { source: string };
    for (let i = 0; i < 22; i++) {
      expect((await api('/templates/quick-fix', 'PUT', { source: shipped.source.replace(/^ {2}purpose: .*$/m, `  purpose: Take ${i}`) })).status).toBe(200);
    }
    await page.goto(`${served.base}/#/templates/quick-fix/history`);
    const items = page.getByRole('list', { name: 'Versions of quick-fix' }).locator('.history-item');
    await expect.poll(() => items.count()).toBe(20);
    await page.getByRole('button', { name: 'Older versions' }).click();
    await expect.poll(() => items.count()).toBe(22);
    expect(await page.getByRole('button', { name: 'Older versions' }).count()).toBe(0);
    expect(await page.evaluate<boolean>("document.activeElement.closest('.history-item') === document.querySelectorAll('.history-item')[20]")).toBe(true);
  });

  it('a role page lists its versions and restores one', async () => {
    expect((await api('/role', 'POST', { name: 'reviewer', role_md: '# Reviewer\n\nFirst words.\n' })).status).toBe(200);
    expect((await api('/role', 'POST', { name: 'reviewer', role_md: '# Reviewer\n\nSecond words.\n' })).status).toBe(200);
    await page.goto(`${served.base}/#/roles/reviewer`);
    const list = page.getByRole('list', { name: 'Versions of reviewer' });
    await expect.poll(() => list.locator('.history-item').count()).toBe(2);
    await list.locator('.history-item').nth(1).getByRole('button', { name: /^Restore/ }).click();
    await page.getByRole('group', { name: 'Confirm restore' }).getByRole('button', { name: 'Yes, restore' }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Versions of reviewer' }).locator('.history-item').count()).toBe(3);
    expect(readFileSync(join(served.root, 'roles', 'reviewer', 'role.md'), 'utf8')).toBe('# Reviewer\n\nFirst words.\n');
  });

  it('a save carries a note into its history entry; after a restore exactly one version is current', async () => {
    await page.goto(`${served.base}/#/templates/quick-fix`);
    await expect.poll(() => editorText(page, 'quick-fix')).toContain('name: quick-fix');
    const shipped = await editorText(page, 'quick-fix');
    const first = shipped.replace(/^ {2}purpose: .*$/m, '  purpose: The first purpose');
    await setEditorText(page, 'quick-fix', first);
    const save = page.getByRole('button', { name: 'Save', exact: true });
    await expect.poll(() => save.isEnabled()).toBe(true);
    await page.getByRole('textbox', { name: 'Note for the history (optional, one line)' }).fill('tighten the gate');
    await save.click();
    await page.locator('.said', { hasText: 'Saved.' }).waitFor();
    expect((await api('/templates/quick-fix', 'PUT', { source: shipped.replace(/^ {2}purpose: .*$/m, '  purpose: The second purpose') })).status).toBe(200);

    await page.getByRole('link', { name: 'History' }).click();
    const list = page.getByRole('list', { name: 'Versions of quick-fix' });
    await expect.poll(() => list.locator('.history-item').count()).toBe(2);
    const noted = list.locator('.history-item').nth(1);
    expect(await noted.locator('.history-message').textContent()).toBe('save quick-fix: tighten the gate');
    await noted.getByRole('button', { name: /^Restore/ }).click();
    await page.getByRole('group', { name: 'Confirm restore' }).getByRole('button', { name: 'Yes, restore' }).click();
    await expect.poll(() => list.locator('.history-item').count()).toBe(3);
    // the restore and the version it restored have the same bytes: only the newest is current
    expect(await list.locator('.tag.current').count()).toBe(1);
    expect(await list.locator('.history-item').first().locator('.tag.current').count()).toBe(1);
  });
});
