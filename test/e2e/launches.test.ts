/**
 * The Launches view in a real browser: a conductor drafts a launch over
 * plain HTTP and waits on it (`?wait=`); the operator opens Launches, sees
 * one run per ticket with its prompts, and approves it; the waiting request
 * answers with the decision.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, buildWeb, callApi, launch, type Served, serve } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('launches (e2e)', () => {
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

  it('a draft approved from the page answers the conductor waiting on it', async () => {
    const drafted = await callApi(served.base, 'POST', '/launches', { template: 'quick-fix', inputs: { tickets: ['DESK-1', 'DESK-2'] }, from: 'conductor' });
    expect(drafted.status).toBe(201);
    const { id } = (await drafted.json()) as { id: string };
    // the conductor waits with plain HTTP
    const waiting = callApi(served.base, 'GET', `/launches/${id}?wait=55`).then(async (r) => ({ status: r.status, body: (await r.json()) as { status: string; runs: unknown[] | null } }));

    await page.goto(`${served.base}/#/launches`);
    const draft = page.locator(`article.launch-draft[data-id="${id}"]`);
    await expect.poll(() => draft.locator('.launch-run').count()).toBe(2);
    expect(await draft.locator('.launch-run').nth(1).locator('[data-node="work"] pre.prompt').textContent()).toMatch(/^Fix DESK-2 with/);
    await draft.getByRole('button', { name: 'Approve' }).click();

    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('approved');
    expect(answer.body.runs).toHaveLength(2);
    // the view is drawn again: the draft is among the decided
    await expect.poll(() => page.locator(`li.row[data-id="${id}"][data-status="approved"]`).count()).toBe(1);
  });

  it('a dismissal with a note reaches the waiting conductor too', async () => {
    const drafted = await callApi(served.base, 'POST', '/launches', { template: 'research', inputs: { question: 'why?' } });
    const { id } = (await drafted.json()) as { id: string };
    const waiting = callApi(served.base, 'GET', `/launches/${id}?wait=55`).then(async (r) => (await r.json()) as { status: string; decision_note: string | null });
    await page.goto(`${served.base}/#/launches`);
    await page.reload();
    const draft = page.locator(`article.launch-draft[data-id="${id}"]`);
    // grok's researcher may not run: it is marked
    await expect.poll(() => draft.locator('[data-node="grok"][data-may-skip="true"]').count()).toBe(1);
    await draft.getByRole('button', { name: 'Dismiss' }).click();
    await draft.getByLabel('Note for the conductor').fill('not now');
    await draft.getByRole('button', { name: 'Yes, dismiss' }).click();
    expect(await waiting).toMatchObject({ status: 'dismissed', decision_note: 'not now' });
  });
});
