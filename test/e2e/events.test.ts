/**
 * Live updates in a real browser (docs/api.md, Events): a save made
 * elsewhere reaches an open list and an open editor without a reload, and
 * the page's own save does not warn about itself.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { editorText, setEditorText } from './editor-page.js';
import { browserMissing, type Served, usePage } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('live updates (e2e)', () => {
  let served: Served;
  let page: Page;
  usePage(
    (s, p) => {
      served = s;
      page = p;
    },
    {
      serve: { token: 'e2e-token' },
      // the token the page would ask for, already given for this tab
      init: (p) => p.addInitScript("sessionStorage.setItem('desk-library.token', 'e2e-token')"),
    },
  );

  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${served.base}/api/desk${path}`, {
      method,
      headers: { authorization: 'Bearer e2e-token', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, etag: r.headers.get('etag'), json: (await r.json().catch(() => null)) as Record<string, unknown> | null };
  };
  const editElsewhere = async (name: string) => {
    const now = await api('GET', `/templates/${name}`);
    const source = String(now.json!.source).replace(/^ {2}purpose: .*$/m, '  purpose: Changed in another window');
    const r = await api('PUT', `/templates/${name}`, { source });
    expect(r.status).toBe(200);
  };
  const streams = () => served.app.eventStreams.stats().subscribers;

  it('an API save elsewhere updates the open list in place within 2 s', async () => {
    await page.goto(`${served.base}/#/`);
    const row = page.locator('ul[aria-label="Templates"] > li[data-name="quick-fix"]');
    await expect.poll(() => row.getAttribute('data-state')).toBe('shipped');
    await expect.poll(streams).toBe(1);
    await page.getByRole('searchbox', { name: 'Filter templates and roles' }).fill('quick');
    await editElsewhere('quick-fix');
    // the bound for "live": the event is written with the save's answer, the list re-read once
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 2000, interval: 50 }).toBe('edited');
    // in place: no navigation, the filter kept
    expect(await page.getByRole('searchbox', { name: 'Filter templates and roles' }).inputValue()).toBe('quick');
    expect(await page.locator('ul[aria-label="Templates"] > li:not([hidden])').count()).toBe(1);
  });

  it('an open editor follows a change made elsewhere, says so when it has edits; its own save does not', async () => {
    await page.goto(`${served.base}/#/templates/write`);
    await expect.poll(() => editorText(page, 'write')).toContain('name: write');
    await expect.poll(streams).toBe(1);
    const notice = page.locator('.conflict');

    // set as one typed edit: Playwright's fill() selects by a DOM range CodeMirror has not read yet and lets Chromium
    // replace the highlighted lines itself, with inline styles the page's policy refuses (no user's edit goes that way)
    await setEditorText(page, 'write', (await editorText(page, 'write')).replace(/^ {2}purpose: .*$/m, '  purpose: Mine, saved here'));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('.page-head h2 .badge').getAttribute('data-state')).toBe('edited');
    // the save's own event came over the stream before its answer; it is not news
    await expect.poll(() => served.app.eventStreams.stats().subscribers).toBe(1);
    expect(await notice.count()).toBe(0);

    // no edits here: the change made elsewhere loads, with nothing to answer
    await editElsewhere('write');
    await expect.poll(() => editorText(page, 'write')).toContain('Changed in another window');
    expect(await notice.count()).toBe(0);

    // with edits: said, with the choices
    await setEditorText(page, 'write', (await editorText(page, 'write')).replace(/^ {2}purpose: .*$/m, '  purpose: Mine again'));
    await expect.poll(() => page.locator('.page-head h2 .unsaved-dot').isVisible()).toBe(true);
    const now = await api('GET', '/templates/write');
    expect((await api('PUT', '/templates/write', { source: `${String(now.json!.source)}# and again elsewhere\n` })).status).toBe(200);
    await notice.waitFor();
    expect(await notice.getAttribute('data-conflict')).toBe('elsewhere');
    await notice.getByRole('button', { name: 'Reload the saved version' }).click();
    await notice.getByRole('group', { name: 'Confirm reload' }).getByRole('button', { name: 'Yes, reload' }).click();
    await expect.poll(() => notice.count()).toBe(0);
    expect(await editorText(page, 'write')).not.toContain('Mine again');
  });
});
