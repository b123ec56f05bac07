/**
 * The settings page in a real browser (Debian's Chromium via playwright-core):
 * the list, a save, a reset, an invalid edit, and a save that meets a change
 * made elsewhere. Each test asserts states, bytes on disk, codes and lines.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { editorCursor, editorText, setEditorText } from './editor-page.js';
import { browserMissing, callApi, type Served, usePage } from './harness.js';

const SHIPPED = ['batch', 'mock-first', 'quick-fix', 'research', 'research-brief', 'ticket-close', 'ticket-completion', 'write'];

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('settings page (e2e)', () => {
  let served: Served;
  let page: Page;
  usePage((s, p) => {
    served = s;
    page = p;
  });

  const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => callApi(served.base, method, path, body, headers);
  const copyPath = (name: string) => join(served.root, 'templates', `${name}.yaml`);
  const badge = () => page.locator('.page-head h2 .badge');

  /** Replaces the whole text as a user's edit would (editor-page.ts: `fill` cannot reach lines not drawn). */
  const setSource = (name: string, text: string) => setEditorText(page, name, text);

  async function open(name: string): Promise<void> {
    await page.goto(`${served.base}/#/templates/${name}`);
    await expect.poll(() => editorText(page, name)).toContain(`name: ${name}`);
  }

  it('lists the eight shipped templates as shipped', async () => {
    await page.goto(`${served.base}/#/`);
    for (const name of SHIPPED) {
      await page.getByRole('link', { name: `template ${name}, shipped`, exact: true }).waitFor();
    }
    const states = await page.locator('ul[aria-label="Templates"] > li').evaluateAll((lis) =>
      lis.map((li) => [li.getAttribute('data-name'), li.getAttribute('data-state')]),
    );
    for (const name of SHIPPED) expect(states).toContainEqual([name, 'shipped']);
    // the filter hides what does not match
    await page.getByRole('searchbox', { name: 'Filter templates and roles' }).fill('quick');
    expect(await page.locator('ul[aria-label="Templates"] > li:not([hidden])').count()).toBe(1);
  });

  it('saves an edited purpose: the template reads edited, the copy is on disk, the list agrees', async () => {
    await open('quick-fix');
    const before = await editorText(page, 'quick-fix');
    const edited = before.replace(/^ {2}purpose: .*$/m, '  purpose: One small ticket, fixed by one worker');
    expect(edited).not.toBe(before);
    await setSource('quick-fix', edited);
    const save = page.getByRole('button', { name: 'Save', exact: true });
    await save.click(); // waits until live validation enables it
    await expect.poll(() => badge().getAttribute('data-state')).toBe('edited');
    expect(readFileSync(copyPath('quick-fix'), 'utf8')).toBe(edited);
    expect(await save.isDisabled()).toBe(true);

    await page.goto(`${served.base}/#/`);
    await page.getByRole('link', { name: 'template quick-fix, edited', exact: true }).waitFor();
  });

  it('resets a copy after confirmation: shipped again and the file is gone', async () => {
    const shipped = (await (await api('GET', '/templates/quick-fix')).json()) as { source: string };
    const put = await api('PUT', '/templates/quick-fix', { source: shipped.source.replace('purpose: One small', 'purpose: A small') });
    expect(put.status).toBe(200);
    expect(existsSync(copyPath('quick-fix'))).toBe(true);

    await open('quick-fix');
    expect(await badge().getAttribute('data-state')).toBe('edited');
    await page.getByRole('button', { name: 'Reset to shipped' }).click();
    expect(existsSync(copyPath('quick-fix'))).toBe(true); // nothing happens before the confirmation
    await page.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Yes, reset' }).click();
    await expect.poll(() => badge().getAttribute('data-state')).toBe('shipped');
    expect(existsSync(copyPath('quick-fix'))).toBe(false);
    expect(await editorText(page, 'quick-fix')).toBe(shipped.source);
  });

  it('marks an invalid edit at its line and keeps Save disabled', async () => {
    await open('quick-fix');
    const text = (await editorText(page, 'quick-fix')).replace('profile: workspace_write', 'profile: everything');
    const line = text.split('\n').findIndex((l) => l.includes('profile: everything')) + 1;
    const column = text.split('\n')[line - 1]!.indexOf('everything') + 1;
    await setSource('quick-fix', text);

    const item = page.locator('ul[aria-label="Problems"] > li[data-code="model.profile_unknown"]');
    await item.waitFor();
    expect(Number(await item.getAttribute('data-line'))).toBe(line);
    expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);

    // clicking the problem puts the cursor on its line
    await item.getByRole('button').click();
    await expect.poll(() => editorCursor(page, 'quick-fix')).toEqual({ line, column });
    expect(existsSync(copyPath('quick-fix'))).toBe(false);
  });

  it('shows the conflict when the template changed elsewhere before the save', async () => {
    await open('write');
    const mine = (await editorText(page, 'write')).replace(/^ {2}purpose: .*$/m, '  purpose: Mine, written in this tab');
    await setSource('write', mine);
    await page.getByRole('button', { name: 'Save', exact: true }).waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'Save', exact: true }).isEnabled()).toBe(true);

    // another tab saves first
    const theirs = mine.replace('Mine, written in this tab', 'Theirs, saved in another tab');
    expect((await api('PUT', '/templates/write', { source: theirs })).status).toBe(200);

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'changed elsewhere' });
    await alert.waitFor();
    expect(readFileSync(copyPath('write'), 'utf8')).toBe(theirs); // our save changed nothing
    expect(await editorText(page, 'write')).toBe(mine); // and our text is kept

    // the merge of the two (conflict.test.ts settles one): both purposes are the sides of its one conflict
    await alert.getByRole('button', { name: 'Merge with the saved version' }).click();
    const merge = page.getByRole('region', { name: 'Merge with the saved version' });
    expect(await merge.locator('.merge-side.mine pre').textContent()).toContain('purpose: Mine, written in this tab');
    expect(await merge.locator('.merge-side.shipped pre').textContent()).toContain('purpose: Theirs, saved in another tab');
    await merge.getByRole('button', { name: 'Close' }).click();

    // Reload drops the edits: asked first, Cancel focused, and cancelling keeps them
    await alert.getByRole('button', { name: 'Reload the saved version' }).click();
    const ask = page.getByRole('group', { name: 'Confirm reload' });
    await ask.waitFor();
    expect(await page.evaluate<string | null>('document.activeElement && document.activeElement.textContent')).toBe('Cancel');
    await page.keyboard.press('Enter');
    await ask.waitFor({ state: 'detached' });
    expect(await editorText(page, 'write')).toBe(mine);
    await alert.getByRole('button', { name: 'Reload the saved version' }).click();
    await ask.getByRole('button', { name: 'Yes, reload' }).click();
    await expect.poll(() => editorText(page, 'write')).toBe(theirs);
    expect(await badge().getAttribute('data-state')).toBe('edited');
  });

  it('saves a role with a tool added to its kit, then resets it to the built-in', async () => {
    await page.goto(`${served.base}/#/roles/worker`);
    await page.getByRole('textbox', { name: 'role.md of worker' }).waitFor();
    await page.getByRole('checkbox', { name: 'web.fetch' }).check();
    await page.getByRole('button', { name: 'Save role' }).click();
    await page.locator('h2 .badge[data-state="edited"]').waitFor();
    const kit = JSON.parse(readFileSync(join(served.root, 'roles', 'worker', 'kit.json'), 'utf8')) as { tools: string[] };
    expect(kit.tools).toContain('web.fetch');

    await page.getByRole('button', { name: 'Reset role to built-in' }).click();
    await page.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Yes, reset' }).click();
    await page.locator('h2 .badge[data-state="shipped"]').waitFor();
    expect(existsSync(join(served.root, 'roles', 'worker'))).toBe(false);
  });

  it('creates a custom template from the skeleton and deletes it', async () => {
    await page.goto(`${served.base}/#/new`);
    await page.getByRole('textbox', { name: 'Name' }).fill('release-notes');
    await page.getByRole('textbox', { name: 'Purpose' }).fill('Draft the release notes');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('.page-head h2 .badge[data-state="custom"]').waitFor();
    expect(readFileSync(copyPath('release-notes'), 'utf8')).toContain('name: release-notes');
    expect(await page.locator('ul[aria-label="Problems"] > li.error').count()).toBe(0);

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('link', { name: 'template quick-fix, shipped', exact: true }).waitFor();
    expect(existsSync(copyPath('release-notes'))).toBe(false);
    expect(await page.locator('li[data-name="release-notes"]').count()).toBe(0);
  });
});
