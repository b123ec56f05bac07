/**
 * The Proposals view in a real browser (Debian's Chromium via playwright-core):
 * a proposal made through the API shows with its card and the header's count,
 * is saved or dismissed from the page, and the API then says so.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { editorText, setEditorText } from './editor-page.js';
import { browserMissing, callApi, type Served, usePage } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('proposals view (e2e)', () => {
  let served: Served;
  let page: Page;
  usePage((s, p) => {
    served = s;
    page = p;
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const r = await callApi(served.base, method, path, body);
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };

  /** quick-fix renamed my-fix, varying quick-fix: a valid proposal with a diff to show. */
  async function proposeMyFix(): Promise<{ id: string; source: string }> {
    const qf = (await api('GET', '/templates/quick-fix')).body.source as string;
    const source = qf.replace(/^ {2}name: quick-fix$/m, '  name: my-fix').replace(/^ {2}base: .*$/m, '  base: quick-fix');
    const r = await api('POST', '/proposals', { name: 'my-fix', purpose: 'quick-fix for the flaky login test', source, from: 'conductor' });
    expect(r.status).toBe(201);
    return { id: r.body.id as string, source };
  }

  const article = (id: string) => page.locator(`article.proposal[data-id="${id}"]`);

  it('shows a proposal made through the API, saves it from the page, and the API says saved', async () => {
    const { id, source } = await proposeMyFix();
    await page.goto(`${served.base}/#/proposals`);
    await article(id).waitFor();
    // the header's count, the card and the diff against what it varies
    await expect.poll(() => page.locator('#proposals-count').textContent()).toBe('1');
    expect(await page.getByRole('link', { name: 'Proposals, 1 pending' }).count()).toBe(1);
    expect(await article(id).locator('table.nodes tbody tr').count()).toBeGreaterThan(0);
    expect(await article(id).getByRole('region', { name: 'What changed against quick-fix' }).count()).toBe(1);

    await article(id).getByRole('button', { name: 'Save to library' }).click();
    await expect.poll(async () => (await api('GET', `/proposals/${id}`)).body.status).toBe('saved');
    const saved = (await api('GET', `/proposals/${id}`)).body;
    expect(saved.saved_as).toBe('my-fix');
    expect(readFileSync(join(served.root, 'templates', 'my-fix.yaml'), 'utf8')).toBe(source);
    // the view is drawn again: nothing waits, the decided list names it, the count is gone
    await page.getByText('No proposal is waiting for a decision.').waitFor();
    await page.locator(`ul[aria-label="Decided proposals"] > li[data-id="${id}"][data-status="saved"]`).waitFor();
    expect(await page.locator('#proposals-count').isHidden()).toBe(true);
  });

  it('saves under another name, and dismisses another with a note', async () => {
    const a = await proposeMyFix();
    const b = await proposeMyFix();
    await page.goto(`${served.base}/#/proposals`);
    await article(a.id).waitFor();
    await article(b.id).waitFor();

    await article(a.id).getByRole('textbox', { name: 'Save as' }).fill('my-fix-2');
    await article(a.id).getByRole('button', { name: 'Save to library' }).click();
    await expect.poll(async () => (await api('GET', `/proposals/${a.id}`)).body.saved_as).toBe('my-fix-2');
    expect(readFileSync(join(served.root, 'templates', 'my-fix-2.yaml'), 'utf8')).toBe(a.source.replace('  name: my-fix', '  name: my-fix-2'));

    // Dismiss asks, with the note, and the focus on Cancel: a stray Enter dismisses nothing
    await article(b.id).getByRole('button', { name: 'Dismiss' }).click();
    const ask = article(b.id).getByRole('group', { name: 'Dismiss my-fix?' });
    await ask.waitFor();
    expect(await page.evaluate<string | null>('document.activeElement && document.activeElement.textContent')).toBe('Cancel');
    await page.keyboard.press('Enter');
    await ask.waitFor({ state: 'hidden' });
    expect((await api('GET', `/proposals/${b.id}`)).body.status).toBe('pending');
    await article(b.id).getByRole('button', { name: 'Dismiss' }).click();
    await ask.getByRole('textbox', { name: 'Note for the conductor' }).fill('one is enough');
    await ask.getByRole('button', { name: 'Yes, dismiss' }).click();
    await expect.poll(async () => (await api('GET', `/proposals/${b.id}`)).body.status).toBe('dismissed');
    expect((await api('GET', `/proposals/${b.id}`)).body.note).toBe('one is enough');
  });

  it('follows the events stream: the count and a new proposal arrive, a decision elsewhere is marked', async () => {
    await page.goto(`${served.base}/#/proposals`);
    await page.getByText('No proposal is waiting for a decision.').waitFor();
    expect(await page.locator('#proposals-count').isHidden()).toBe(true);
    const { id } = await proposeMyFix();
    await expect.poll(() => page.locator('#proposals-count').textContent()).toBe('1');
    await page.getByRole('status').getByRole('button', { name: 'Show it' }).click();
    await article(id).waitFor();
    expect((await api('POST', `/proposals/${id}/dismiss`, { note: 'from another window' })).status).toBe(200);
    await article(id).getByText('Dismissed elsewhere.').waitFor();
    expect(await article(id).getByRole('button', { name: 'Save to library' }).isDisabled()).toBe(true);
    await expect.poll(() => page.locator('#proposals-count').isHidden()).toBe(true);
  });

  it('an invalid proposal lists its problems; saving it is refused with them and it stays pending', async () => {
    const qf = (await api('GET', '/templates/quick-fix')).body.source as string;
    const r = await api('POST', '/proposals', { name: 'quick-fix', purpose: 'a broken profile', source: qf.replace('profile: workspace_write', 'profile: nope') });
    const id = r.body.id as string;
    await page.goto(`${served.base}/#/proposals`);
    await article(id).getByRole('list', { name: 'Problems of quick-fix' }).locator('li[data-code="model.profile_unknown"]').waitFor();
    // Save is closed while it is invalid, and says why
    const save = article(id).getByRole('button', { name: 'Save to library' });
    expect(await save.isDisabled()).toBe(true);
    expect(await article(id).locator(`#p-${id}-why`).textContent()).toContain('Not valid');
    expect((await api('GET', `/proposals/${id}`)).body.status).toBe('pending');
    expect((await api('GET', '/templates/quick-fix')).body.state).toBe('shipped');

    // opened in the editor of its name, fixed there, and saved: that decides the proposal
    await article(id).getByRole('button', { name: 'Open in editor' }).click();
    await page.locator(`.proposal-open[data-proposal="${id}"]`).waitFor();
    await expect.poll(() => editorText(page, 'quick-fix')).toContain('profile: nope');
    await page.locator('.page-head h2 .unsaved-dot').waitFor({ state: 'visible' });
    // the proposal's save carries its own note: no note field to type into and lose
    const noteField = page.getByRole('textbox', { name: 'Note for the history (optional, one line)' });
    expect(await noteField.count()).toBe(0);
    const fixed = (await editorText(page, 'quick-fix')).replace('profile: nope', 'profile: workspace_write').replace(/^ {2}purpose: .*$/m, '  purpose: fixed by the operator');
    await setEditorText(page, 'quick-fix', fixed);
    const editorSave = page.getByRole('button', { name: 'Save', exact: true });
    await expect.poll(() => editorSave.isEnabled()).toBe(true);
    await editorSave.click();
    await expect.poll(async () => (await api('GET', `/proposals/${id}`)).body.status).toBe('saved');
    expect((await api('GET', `/proposals/${id}`)).body.note).toMatch(/edit/);
    expect(readFileSync(join(served.root, 'templates', 'quick-fix.yaml'), 'utf8')).toBe(fixed);
    // the page followed its own save: no conflict
    await page.locator('.page-head h2 .badge[data-state="edited"]').waitFor();
    expect(await page.locator('.conflict').count()).toBe(0);
    // decided: the next save is the template's own, with its note field back
    expect(await noteField.count()).toBe(1);
  });

  it('a save that meets a template made meanwhile under that name is refused, and the proposal stays pending', async () => {
    const { id, source } = await proposeMyFix();
    await page.goto(`${served.base}/#/proposals`);
    await article(id).waitFor();
    // another window creates my-fix after the page read the library
    expect((await api('PUT', '/templates/my-fix', { source })).status).toBe(200);
    await article(id).getByRole('button', { name: 'Save to library' }).click();
    await article(id).getByRole('alert').waitFor();
    expect((await api('GET', `/proposals/${id}`)).body.status).toBe('pending');
  });

  it('a proposal over the operator\'s edited copy: its lines marked, asked first naming them, a change meanwhile a 412, history marks the save', async () => {
    const read = (await api('GET', '/templates/quick-fix')).body;
    const shipped = read.source as string;
    const mine = shipped.replace(/^ {2}purpose: .*$/m, '  purpose: The operator\'s own purpose').replace(/^version: 1$/m, '# tuned for our repo\nversion: 1');
    expect((await api('PUT', '/templates/quick-fix', { source: mine })).status).toBe(200);
    // the conductor proposes quick-fix built from the shipped file
    const made = await api('POST', '/proposals', { name: 'quick-fix', purpose: 'start again from shipped', source: shipped, from: 'conductor' });
    const id = made.body.id as string;
    const file = join(served.root, 'templates', 'quick-fix.yaml');

    await page.goto(`${served.base}/#/proposals`);
    await article(id).locator('[data-impact="edited"]').waitFor();
    // the diff against the copy as it stands marks the operator's lines that would go
    const marked = await article(id).locator('.proposal-replaces .yours').allTextContents();
    expect(marked.join('\n')).toContain("purpose: The operator's own purpose");
    expect(marked.join('\n')).toContain('# tuned for our repo');

    // Save asks first, naming the lines; the focus on Cancel, so Enter loses nothing
    await article(id).getByRole('button', { name: 'Save to library' }).click();
    const ask = article(id).getByRole('group', { name: 'Confirm' });
    await ask.waitFor();
    expect(await ask.locator('.lost-lines li').allTextContents()).toEqual(["purpose: The operator's own purpose", '# tuned for our repo']);
    expect(await page.evaluate<string | null>('document.activeElement && document.activeElement.textContent')).toBe('Cancel');
    await page.keyboard.press('Enter');
    await ask.waitFor({ state: 'detached' });
    expect(readFileSync(file, 'utf8')).toBe(mine);

    // saved elsewhere after the page read the copy: the save carries that copy's ETag, so it is a 412, never an overwrite
    const meanwhile = `${mine}# and one more, from another window\n`;
    expect((await api('PUT', '/templates/quick-fix', { source: meanwhile })).status).toBe(200);
    await article(id).getByRole('button', { name: 'Save to library' }).click();
    await ask.getByRole('button', { name: 'Yes, save over it' }).click();
    await article(id).getByRole('alert').waitFor();
    expect(readFileSync(file, 'utf8')).toBe(meanwhile);
    expect((await api('GET', `/proposals/${id}`)).body.status).toBe('pending');

    // drawn again, it shows the copy as it is now; this time yes saves
    await page.reload();
    await article(id).locator('[data-impact="edited"]').waitFor();
    await article(id).getByRole('button', { name: 'Save to library' }).click();
    expect(await ask.locator('.lost-lines li').allTextContents()).toContain('# and one more, from another window');
    await ask.getByRole('button', { name: 'Yes, save over it' }).click();
    await expect.poll(async () => (await api('GET', `/proposals/${id}`)).body.status).toBe('saved');
    expect(readFileSync(file, 'utf8')).toBe(shipped);
    // the record says what it replaced; the decided list says so; History marks the save as a proposal's
    expect((await api('GET', `/proposals/${id}`)).body.replaced).toMatchObject({ state: 'edited' });
    await page.locator(`ul[aria-label="Decided proposals"] > li[data-id="${id}"]`).getByText('over the edited copy', { exact: false }).waitFor();
    await page.goto(`${served.base}/#/templates/quick-fix/history`);
    const newest = page.getByRole('list', { name: 'Versions of quick-fix' }).locator('.history-item').first();
    await newest.waitFor();
    expect(await newest.getAttribute('data-proposal')).toBe(id);
    expect(await newest.locator('.proposal-save').textContent()).toBe('a proposal');
  });
});
