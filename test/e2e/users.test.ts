/**
 * The page knows who it works for (docs/security.md, Users and roles): as a
 * viewer it shows the name and role and leaves out every write action; as
 * an editor a save shows in History under the user's name.
 */
import { AxeBuilder } from '@axe-core/playwright';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { packageRoot } from '../../src/paths.js';
import { UserDirectory } from '../../src/http/users-directory.js';
import { TOKENS, USERS, writeUsers } from '../users-fixture.js';
import { editorText, setEditorText, sourceBox } from './editor-page.js';
import { browserMissing, useBrowser } from './harness.js';
import { headerLines, NARROW, tooWide } from './narrow.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('users and roles (e2e)', () => {
  const t = useBrowser();

  /** the last desk served: its users (read again by a test that changes a role) and where their file is */
  let desk: { users: UserDirectory; dir: string; app: Awaited<ReturnType<typeof buildApp>> };

  async function served(): Promise<string> {
    const dir = t.tempDir('desk-e2e-users-');
    const users = UserDirectory.open({ file: await writeUsers(dir) });
    const app = t.defer(await buildApp({ libraryOptions: { root: join(dir, 'library') }, users }));
    desk = { users, dir, app };
    await app.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no port');
    return `http://127.0.0.1:${addr.port}`;
  }

  /** a tab that carries `token` as if typed into the token form (kept for the tab, as api.ts keeps it) */
  async function tabAs(token: string): Promise<Page> {
    const page = await t.page();
    await page.addInitScript(`sessionStorage.setItem('desk-library.token', ${JSON.stringify(token)})`);
    return page;
  }

  /** signs in through the page's own form, as a person would, with their personal token */
  async function signIn(page: Page, token: string): Promise<void> {
    const dialog = page.getByRole('dialog', { name: 'Sign in' });
    await dialog.getByRole('textbox', { name: 'Your token' }).fill(token);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
  }

  it('a viewer signs in with a personal token and reads: editors read-only, no write action, nothing to guard', async () => {
    const base = await served();
    const page = await t.page();
    await page.goto(`${base}/#/`);
    await page.getByRole('dialog', { name: 'Sign in' }).waitFor();
    // nothing was in contact yet: no contact banner behind the form
    expect(await page.locator('#connection').isVisible()).toBe(false);
    await signIn(page, TOKENS.vera);
    await expect.poll(() => page.locator('#who-am-i').textContent()).toBe('vera · viewer');
    await page.locator('.library').waitFor();
    expect(await page.locator('#role-note').textContent()).toContain('needs the editor role');
    // on a phone-sized window the header (name, role, Sign out, library path) stays in two lines, nothing wider than it
    await page.setViewportSize(NARROW);
    expect(await tooWide(page)).toBe('');
    expect(await headerLines(page)).toBeLessThanOrEqual(2);
    await page.setViewportSize({ width: 1280, height: 720 });
    expect(await page.getByRole('link', { name: 'New template' }).count()).toBe(0);
    // the row menu offers only Open
    await page.getByRole('button', { name: 'Actions for template quick-fix' }).click();
    const menu = page.locator('.row[data-key="template:quick-fix"] .row-menu');
    await menu.getByRole('link', { name: 'Open' }).waitFor();
    expect(await menu.getByRole('button').count()).toBe(0);
    await page.keyboard.press('Escape');

    await page.goto(`${base}/#/templates/quick-fix`);
    await page.locator('.cm-content').first().waitFor();
    // docs/security.md shows this view (UPDATE_SCREENSHOTS=1, as test/e2e/screenshots.test.ts)
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.screenshot({ path: join(packageRoot, 'docs', 'screenshots', 'viewer.png') });
    }
    for (const name of ['Save', 'Revert edits', 'Reset to shipped', 'Delete', 'Duplicate as new template', 'Acknowledge shipped version']) {
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    }
    // the editor is read-only: typing changes nothing, no unsaved dot, and leaving asks nothing
    const before = await editorText(page, 'quick-fix');
    expect(await sourceBox(page, 'quick-fix').getAttribute('aria-readonly')).toBe('true');
    await sourceBox(page, 'quick-fix').click();
    await page.keyboard.type('typed by a viewer');
    expect(await editorText(page, 'quick-fix')).toBe(before);
    expect(await page.locator('.page-head .unsaved-dot').isHidden()).toBe(true);
    // the read-only editor and the line about the role: nothing axe finds
    const axe = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
    expect(axe.violations.map((v) => `${v.id}: ${v.nodes[0]?.target.join(' ')}`)).toEqual([]);
    await page.getByRole('link', { name: 'Library', exact: true }).click();
    await page.locator('.library').waitFor();
    expect(await page.getByRole('dialog', { name: 'Leave this page?' }).count()).toBe(0);

    // a role: both editors read-only, the kit's boxes closed, saying why
    await page.goto(`${base}/#/roles/worker`);
    const md = page.getByRole('textbox', { name: 'role.md of worker' });
    await md.waitFor();
    expect(await md.getAttribute('aria-readonly')).toBe('true');
    expect(await page.getByRole('button', { name: 'Save role' }).count()).toBe(0);
    const box = page.getByRole('checkbox', { name: 'web.fetch' });
    expect(await box.isDisabled()).toBe(true);
    expect(await box.getAttribute('aria-describedby')).toBe('kit-why');
    expect(await page.locator('#kit-why').textContent()).toContain('editor role');

    // a link to New template: told, no form to fill in vain
    await page.goto(`${base}/#/new`);
    await page.getByText('Creating a template needs the editor role.').waitFor();
    expect(await page.getByRole('button', { name: 'Create' }).count()).toBe(0);

    // a pending proposal (the conductor's): the viewer reads it, and cannot decide it; an editor can
    const shipped = (await (await fetch(`${base}/api/desk/templates/quick-fix`, { headers: { authorization: `Bearer ${TOKENS.vera}` } })).json()) as { source: string };
    const made = await fetch(`${base}/api/desk/proposals`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.carl}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'quick-fix', purpose: 'a try', source: shipped.source }),
    });
    expect(made.status).toBe(201);
    await page.goto(`${base}/#/proposals`);
    await page.getByText('a try').first().waitFor();
    expect(await page.getByRole('button', { name: 'Save to library' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Dismiss', exact: true }).count()).toBe(0);
    // Sign out forgets the tab's token: the page asks again
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('dialog', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate("sessionStorage.getItem('desk-library.token')")).toBeNull();

    const editor = await tabAs(TOKENS.ann);
    await editor.goto(`${base}/#/proposals`);
    await editor.getByRole('button', { name: 'Save to library' }).first().waitFor();
    expect(await editor.locator('#role-note').count()).toBe(0);

    // a conductor: told what it may do, the template read-only, no decision
    const conductor = await tabAs(TOKENS.carl);
    await conductor.goto(`${base}/#/templates/quick-fix`);
    await expect.poll(() => conductor.locator('#who-am-i').textContent()).toBe('carl · conductor');
    expect(await conductor.locator('#role-note').textContent()).toContain('conductor');
    await sourceBox(conductor, 'quick-fix').waitFor();
    expect(await sourceBox(conductor, 'quick-fix').getAttribute('aria-readonly')).toBe('true');
    expect(await conductor.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    await conductor.goto(`${base}/#/proposals`);
    await conductor.getByText('a try').first().waitFor();
    expect(await conductor.getByRole('button', { name: 'Save to library' }).count()).toBe(0);
  });

  it('an editor saves, and History says who', async () => {
    const base = await served();
    const page = await tabAs(TOKENS.ann);
    await page.goto(`${base}/#/templates/quick-fix`);
    await expect.poll(() => page.locator('#who-am-i').textContent()).toBe('ann · editor');
    const save = page.getByRole('button', { name: 'Save', exact: true });
    await save.waitFor();
    await expect.poll(() => editorText(page, 'quick-fix')).toContain('name: quick-fix');
    const text = await editorText(page, 'quick-fix');
    // nothing to revert yet: Revert edits is closed until the text differs
    const revert = page.getByRole('button', { name: 'Revert edits' });
    expect(await revert.isDisabled()).toBe(true);
    await setEditorText(page, 'quick-fix', text.replace(/^ {2}purpose: .*$/m, '  purpose: Saved by ann in the browser'));
    await expect.poll(() => revert.isEnabled()).toBe(true);
    await save.click();
    // saved (the page then has nothing unsaved to ask about when it moves on)
    const read = async () => (await (await fetch(`${base}/api/desk/templates/quick-fix`, { headers: { authorization: `Bearer ${TOKENS.ann}` } })).json()) as { source: string };
    await expect.poll(async () => (await read()).source, { timeout: 10_000 }).toContain('Saved by ann in the browser');
    await page.goto(`${base}/#/templates/quick-fix/history`);
    const list = page.getByRole('list', { name: 'Versions of quick-fix' });
    await expect.poll(() => list.locator('.history-item').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => list.locator('.history-item').first().locator('.history-who').textContent()).toBe('ann');

    // ann's role drops to viewer while her tab is open: the refused save is said in the status line, in words
    await writeUsers(desk.dir, USERS.map((u) => (u.name === 'ann' ? { ...u, role: 'viewer' as const } : u)));
    await desk.users.reload(desk.app.log);
    await page.goto(`${base}/#/templates/quick-fix`);
    await expect.poll(() => editorText(page, 'quick-fix')).toContain('Saved by ann in the browser');
    await setEditorText(page, 'quick-fix', (await editorText(page, 'quick-fix')).replace('Saved by ann in the browser', 'Not to be saved'));
    await expect.poll(() => save.isEnabled()).toBe(true);
    await save.click();
    const status = page.locator('#status');
    await status.waitFor();
    expect(await status.textContent()).toContain('needs the editor role');
    expect(await status.getAttribute('data-kind')).toBe('error');
    expect((await read()).source).toContain('Saved by ann in the browser');
  });
});
